// The fault keys of the config: storage.faults.*, storage.faults_per_ssd and queues.timeout_ms.
// Parsing (status names and numbers, ranges, unknown keys), validation across keys (sums,
// lengths, backends), round trips, and what the emulators and waits are given.
#include <gtest/gtest.h>

#include <string>

#include "bam/config/config_io.hpp"
#include "bam/emu/faults_of_config.hpp"
#include "bam/nvme/names.hpp"

namespace bam {
namespace {

using nlohmann::json;

template <class Fn>
void expect_error(Fn&& fn, const std::string& key, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no config_error for " << key;
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    const std::string what = e.what();
    for (const auto& p : parts)
      EXPECT_NE(what.find(p), std::string::npos) << what << " / " << p;
  }
}

run_config parse_and_validate(const json& j) {
  run_config c = parse_config(j);
  validate(c);
  return c;
}

TEST(FaultsConfig, DefaultsInjectNothingAndWaitThirtySeconds) {
  const run_config c{};
  EXPECT_FALSE(faults_enabled(c.storage));
  EXPECT_EQ(c.queues.timeout_ms, 0u);
  EXPECT_EQ(command_timeout_ns(c), 30'000'000'000ull);
  const json j = to_json(c);
  EXPECT_EQ(j["storage"]["faults"]["error_status"], "Unrecovered Read Error");
  EXPECT_EQ(j["storage"]["faults"]["error_fraction"], 0.0);
  EXPECT_EQ(j["storage"]["faults_per_ssd"], json::array());
  EXPECT_EQ(j["queues"]["timeout_ms"], 0);
  const emu::fault_config f = emu::fault_config_of(c, 0);
  EXPECT_EQ(f.error_status, nvme::sc::unrecovered_read_error);
  EXPECT_FALSE(emu::make_fault_plan(f).any);
}

TEST(FaultsConfig, EveryKeyParsesAndReachesTheEmulators) {
  const run_config c = parse_and_validate(json::parse(R"({
    "storage": {"ssd_count": 2, "faults": {"error_fraction": 0.1, "error_status": "write fault",
                "delay_fraction": 0.2, "delay_us": 500, "drop_fraction": 0.05, "seed": 9}},
    "queues": {"timeout_ms": 250}})"));
  const fault_settings& f = c.storage.faults;
  EXPECT_EQ(f.error_fraction, 0.1);
  EXPECT_EQ(f.error_status, 0x280);
  EXPECT_EQ(f.delay_fraction, 0.2);
  EXPECT_EQ(f.delay_us, 500u);
  EXPECT_EQ(f.drop_fraction, 0.05);
  EXPECT_EQ(f.seed, 9u);
  EXPECT_TRUE(faults_enabled(c.storage));
  EXPECT_EQ(command_timeout_ns(c), 250'000'000u);
  for (std::uint32_t ssd = 0; ssd < 2; ++ssd) {
    const emu::fault_config e = emu::fault_config_of(c, ssd);
    EXPECT_EQ(e.error_fraction, 0.1);
    EXPECT_EQ(e.error_status, nvme::sc::write_fault);
    EXPECT_EQ(e.delay_fraction, 0.2);
    EXPECT_EQ(e.delay_ns, 500'000u);
    EXPECT_EQ(e.drop_fraction, 0.05);
    EXPECT_EQ(e.seed, 9u);
  }
  EXPECT_EQ(parse_config(to_json(c)), c);
  EXPECT_EQ(to_json(c)["storage"]["faults"]["error_status"], "Write Fault");
}

TEST(FaultsConfig, ErrorStatusByNameOrNumber) {
  auto status_of = [](const json& v) {
    return parse_config(json{{"storage", {{"faults", {{"error_status", v}}}}}})
        .storage.faults.error_status;
  };
  EXPECT_EQ(status_of("LBA Out of Range"), 0x080);
  EXPECT_EQ(status_of("lba out of range"), 0x080);
  EXPECT_EQ(status_of("lba_out_of_range"), 0x080);
  EXPECT_EQ(status_of("Command Aborted due to SQ Deletion"), 0x008);
  EXPECT_EQ(status_of("internal error"), 0x006);
  EXPECT_EQ(status_of(0x281), 0x281);
  EXPECT_EQ(status_of(0x1ff), 0x1ff);  // a code bamkit has no name for is kept as a number
  run_config c{};
  c.storage.faults.error_status = 0x1ff;
  EXPECT_EQ(to_json(c)["storage"]["faults"]["error_status"], 0x1ff);
  EXPECT_EQ(parse_config(to_json(c)), c);
  for (const auto& name : {"Internal Error", "Data Transfer Error", "Unrecovered Read Error"}) {
    run_config d{};
    d.storage.faults.error_status = nvme::status_from_name(name)->code();
    EXPECT_EQ(to_json(d)["storage"]["faults"]["error_status"], name);
  }

  const std::string key = "storage.faults.error_status";
  auto set = [&](const json& v) {
    return [v] { parse_config(json{{"storage", {{"faults", {{"error_status", v}}}}}}); };
  };
  expect_error(set("no such status"), key, {"\"no such status\" is not a status name"});
  expect_error(set("Successful Completion"), key, {"is not allowed", "not success"});
  expect_error(set(0), key, {"out of range", "[1, 2047]"});
  expect_error(set(0x800), key, {"out of range"});
  expect_error(set(-1), key, {"out of range"});
  expect_error(set("Host Timeout (bamkit)"), key, {"not bamkit's own"});
  expect_error(set(0x7f1), key, {"Host Queue Failed (bamkit)", "is not allowed"});
  expect_error(set(true), key, {"expected a status name or number"});
}

TEST(FaultsConfig, RangesOfSingleKeys) {
  auto set = [](const char* k, const json& v) {
    return [k, v] { parse_config(json{{"storage", {{"faults", {{k, v}}}}}}); };
  };
  expect_error(set("error_fraction", 1.5), "storage.faults.error_fraction",
               {"out of range", "[0, 1]"});
  expect_error(set("delay_fraction", -0.1), "storage.faults.delay_fraction", {"out of range"});
  expect_error(set("drop_fraction", "half"), "storage.faults.drop_fraction", {"expected a number"});
  expect_error(set("delay_us", 3'600'000'001ull), "storage.faults.delay_us",
               {"out of range", "[0, 3600000000]"});
  expect_error(set("seed", -3), "storage.faults.seed", {"out of range"});
  expect_error(set("bogus", 1), "storage.faults.bogus", {"unknown key", "error_fraction"});
  expect_error(
      [] {
        parse_config(json{{"queues", {{"timeout_ms", 3'600'001}}}});
      },
      "queues.timeout_ms", {"out of range", "[0, 3600000]"});
  expect_error(
      [] {
        parse_config(json{{"storage", {{"faults", 0.5}}}});
      },
      "storage.faults", {"expected an object"});
}

TEST(FaultsConfig, FractionsSumToAtMostOneAndADelayHasALength) {
  expect_error(
      [] {
        parse_and_validate(json::parse(
            R"({"storage": {"faults": {"error_fraction": 0.5, "drop_fraction": 0.3,
                                        "delay_fraction": 0.3, "delay_us": 10}}})"));
      },
      "storage.faults", {"error_fraction + delay_fraction + drop_fraction = 1.1", "above 1"});
  EXPECT_NO_THROW(parse_and_validate(
      json::parse(R"({"storage": {"faults": {"error_fraction": 0.5, "drop_fraction": 0.5}}})")));
  expect_error(
      [] {
        parse_and_validate(json::parse(R"({"storage": {"faults": {"delay_fraction": 0.1}}})"));
      },
      "storage.faults.delay_us", {"0 with delay_fraction = 0.1"});
}

TEST(FaultsConfig, PerSsdEntriesOverrideTheSharedKeys) {
  const run_config c = parse_and_validate(json::parse(R"({
    "storage": {"ssd_count": 3,
                "faults": {"error_fraction": 0.1, "seed": 5, "delay_us": 100},
                "faults_per_ssd": [{}, {"error_fraction": 0, "drop_fraction": 0.2},
                                   {"delay_fraction": 0.5, "error_status": 646, "seed": 6}]}})"));
  const fault_settings a = faults_of(c.storage, 0), b = faults_of(c.storage, 1),
                       d = faults_of(c.storage, 2);
  EXPECT_EQ(a, c.storage.faults);
  EXPECT_EQ(b.error_fraction, 0.0);
  EXPECT_EQ(b.drop_fraction, 0.2);
  EXPECT_EQ(b.seed, 5u);
  EXPECT_EQ(d.error_fraction, 0.1);
  EXPECT_EQ(d.delay_fraction, 0.5);
  EXPECT_EQ(d.delay_us, 100u);
  EXPECT_EQ(d.error_status, 646);
  EXPECT_EQ(d.seed, 6u);
  EXPECT_EQ(emu::fault_config_of(c, 2).error_status, nvme::sc::access_denied);
  // The longest delay of any SSD decides the automatic timeout.
  EXPECT_EQ(command_timeout_ns(c), 1'000'000'000ull + 100'000ull);
  // Round trip: only the keys an entry gave are written back.
  const json j = to_json(c);
  EXPECT_EQ(j["storage"]["faults_per_ssd"][0], json::object());
  EXPECT_EQ(j["storage"]["faults_per_ssd"][1],
            json::parse(R"({"error_fraction": 0.0, "drop_fraction": 0.2})"));
  EXPECT_EQ(j["storage"]["faults_per_ssd"][2]["error_status"], "Access Denied");
  EXPECT_EQ(parse_config(j), c);
  EXPECT_EQ(parse_config(json::parse(j.dump())), c);

  // Faults on one SSD only are faults.
  const run_config one = parse_and_validate(json::parse(
      R"({"storage": {"ssd_count": 2, "faults_per_ssd": [{}, {"drop_fraction": 0.01}]}})"));
  EXPECT_TRUE(faults_enabled(one.storage));
  EXPECT_FALSE(faults_of(one.storage, 0).any());
  EXPECT_EQ(command_timeout_ns(one), 1'000'000'000ull);
}

TEST(FaultsConfig, PerSsdListIsCheckedEntryByEntry) {
  auto per_ssd = [](const std::string& list, std::uint32_t ssds = 2) {
    return [list, ssds] {
      json j = json::parse(R"({"storage": {"faults_per_ssd": )" + list + "}}");
      j["storage"]["ssd_count"] = ssds;
      parse_and_validate(j);
    };
  };
  expect_error(per_ssd("[{}]"), "storage.faults_per_ssd",
               {"1 entries for storage.ssd_count = 2", "exactly one per SSD"});
  expect_error(per_ssd("[{}, {}, {}]"), "storage.faults_per_ssd", {"3 entries"});
  expect_error(per_ssd(R"([{}, {"drop_fraction": 2}])"), "storage.faults_per_ssd[1].drop_fraction",
               {"out of range", "[0, 1]"});
  expect_error(per_ssd(R"([{"colour": "red"}, {}])"), "storage.faults_per_ssd[0].colour",
               {"unknown key",
                "allowed error_fraction, error_status, delay_fraction, delay_us, "
                "drop_fraction, seed"});
  expect_error(per_ssd(R"([{}, {"error_status": "nope"}])"),
               "storage.faults_per_ssd[1].error_status", {"is not a status name"});
  expect_error(per_ssd(R"([{}, 3])"), "storage.faults_per_ssd[1]", {"expected an object"});
  expect_error(per_ssd(R"({"a": 1})"), "storage.faults_per_ssd", {"expected an array"});
  expect_error(per_ssd(R"([{}, {"error_fraction": 0.6, "drop_fraction": 0.6}])"),
               "storage.faults_per_ssd[1]", {"= 1.2", "above 1"});
  expect_error(per_ssd(R"([{"delay_fraction": 0.3}, {}])"), "storage.faults_per_ssd[0].delay_us",
               {"a delay needs a length"});
  EXPECT_NO_THROW(per_ssd("[]")());
}

TEST(FaultsConfig, OnlyEmulatedSsdsInjectFaults) {
  for (const char* backend : {"host", "emulated"}) {
    json j = json::parse(R"({"storage": {"faults": {"error_fraction": 0.1}}})");
    j["storage"]["backend"] = backend;
    if (std::string(backend) == "emulated") j["storage"]["media"]["kind"] = "host";
    EXPECT_NO_THROW(parse_and_validate(j)) << backend;
  }
  expect_error(
      [] {
        parse_and_validate(json::parse(R"({"storage": {"backend": "zerocopy",
                                          "faults": {"drop_fraction": 0.1}}})"));
      },
      "storage.faults", {"backend \"zerocopy\"", "allowed with backend host|emulated"});
  expect_error(
      [] {
        parse_and_validate(json::parse(R"({"storage": {"backend": "zerocopy", "ssd_count": 1,
                                          "faults_per_ssd": [{"error_fraction": 0.1}]}})"));
      },
      "storage.faults_per_ssd", {"only emulated SSDs inject faults"});
  // Keys that inject nothing are fine anywhere.
  EXPECT_NO_THROW(parse_and_validate(json::parse(
      R"({"storage": {"backend": "zerocopy", "faults": {"seed": 4, "delay_us": 10}}})")));
}

TEST(FaultsConfig, TimeoutResolution) {
  run_config c{};
  c.queues.timeout_ms = 1;
  EXPECT_EQ(command_timeout_ns(c), 1'000'000u);
  c.queues.timeout_ms = 0;
  c.storage.faults.error_fraction = 0.5;
  EXPECT_EQ(command_timeout_ns(c), 1'000'000'000u);  // errors only: delay_us is not used
  c.storage.faults.delay_us = 3'000'000;
  EXPECT_EQ(command_timeout_ns(c), 1'000'000'000u);
  c.storage.faults.delay_fraction = 0.1;
  EXPECT_EQ(command_timeout_ns(c), 4'000'000'000u);
  c.queues.timeout_ms = 20;  // shorter than the delay: delayed commands time out, as asked
  EXPECT_EQ(command_timeout_ns(c), 20'000'000u);
}

}  // namespace
}  // namespace bam
