// Fault injection: decisions are reproducible, keyed per command, and hit the configured
// fractions.
#include <gtest/gtest.h>

#include <cstdint>

#include "bam/emu/fault_injection.hpp"

namespace {

using namespace bam::emu;

TEST(FaultInjection, NoFaultsByDefault) {
  const fault_plan p = make_fault_plan(fault_config{});
  EXPECT_FALSE(p.any);
  for (std::uint64_t k = 0; k < 1000; ++k)
    EXPECT_EQ(p.decide(k), fault_action::none);
}

TEST(FaultInjection, FractionsAreMetOverManyCommands) {
  fault_config c;
  c.error_fraction = 0.01;
  c.drop_fraction = 0.002;
  c.delay_fraction = 0.05;
  c.seed = 7;
  const fault_plan p = make_fault_plan(c);
  std::uint64_t n[4] = {};
  constexpr std::uint64_t total = 1'000'000;
  for (std::uint64_t k = 0; k < total; ++k)
    ++n[static_cast<int>(p.decide(k))];
  EXPECT_NEAR(static_cast<double>(n[1]) / total, 0.01, 0.0005);
  EXPECT_NEAR(static_cast<double>(n[3]) / total, 0.002, 0.0002);
  EXPECT_NEAR(static_cast<double>(n[2]) / total, 0.05, 0.001);
  EXPECT_EQ(n[0] + n[1] + n[2] + n[3], total);
}

TEST(FaultInjection, SameKeySameFateOtherSeedOtherFates) {
  fault_config c;
  c.error_fraction = 0.5;
  c.seed = 1;
  const fault_plan a = make_fault_plan(c), b = make_fault_plan(c);
  c.seed = 2;
  const fault_plan other = make_fault_plan(c);
  int differ = 0;
  for (std::uint64_t k = 0; k < 1000; ++k) {
    EXPECT_EQ(a.decide(k), b.decide(k));
    differ += a.decide(k) != other.decide(k) ? 1 : 0;
  }
  EXPECT_GT(differ, 300);  // independent coin flips differ half the time
}

TEST(FaultInjection, AllOrNothing) {
  fault_config c;
  c.drop_fraction = 1.0;
  const fault_plan all = make_fault_plan(c);
  for (std::uint64_t k = 0; k < 1000; ++k)
    EXPECT_EQ(all.decide(k), fault_action::drop);
  EXPECT_EQ(make_fault_plan(fault_config{}).error_status, bam::nvme::sc::unrecovered_read_error);
}

}  // namespace
