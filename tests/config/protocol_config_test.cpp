// storage.protocol: parsed strictly, echoed in reports, hardware by default, emulator only with
// backend emulated.
#include <gtest/gtest.h>

#include <string>

#include "bam/config/config_io.hpp"

namespace bam {
namespace {

using nlohmann::json;

/// The config_error of validating `j`, or "" when it is valid.
std::string validation_error(const json& j, std::string* key = nullptr) {
  try {
    validate(parse_config(j));
    return "";
  } catch (const config_error& e) {
    if (key != nullptr) *key = e.key();
    return e.what();
  }
}

TEST(Protocol, HardwareByDefaultParsedStrictlyAndEchoed) {
  EXPECT_EQ(run_config{}.storage.protocol, storage_protocol::hardware);
  EXPECT_EQ(to_json(run_config{})["storage"]["protocol"], "hardware");
  const run_config c =
      parse_config(json{{"storage", {{"backend", "emulated"}, {"protocol", "emulator"}}}});
  EXPECT_EQ(c.storage.protocol, storage_protocol::emulator);
  EXPECT_EQ(to_json(c)["storage"]["protocol"], "emulator");  // the report's config echo
  EXPECT_EQ(std::string(to_string(storage_protocol::hardware)), "hardware");

  std::string key;
  std::string what = validation_error(json{{"storage", {{"protocol", "device"}}}}, &key);
  EXPECT_EQ(key, "storage.protocol");
  EXPECT_NE(what.find("\"device\" is not allowed, allowed hardware|emulator"), std::string::npos)
      << what;
  what = validation_error(json{{"storage", {{"protocol", 1}}}}, &key);
  EXPECT_EQ(key, "storage.protocol");
  EXPECT_NE(what.find("expected a string"), std::string::npos) << what;
}

TEST(Protocol, EmulatorOnlyWithBackendEmulated) {
  for (const char* p : {"hardware", "emulator"})
    EXPECT_EQ(validation_error(json{{"storage", {{"backend", "emulated"}, {"protocol", p}}}}), "")
        << p;
  for (const char* backend : {"host", "zerocopy"}) {
    EXPECT_EQ(validation_error(json{{"storage", {{"backend", backend}, {"protocol", "hardware"}}}}),
              "")
        << backend;
    std::string key;
    const std::string what =
        validation_error(json{{"storage", {{"backend", backend}, {"protocol", "emulator"}}}}, &key);
    EXPECT_EQ(key, "storage.protocol");
    EXPECT_EQ(what.rfind(std::string("storage.protocol: \"emulator\" is not allowed with backend "
                                     "\"") +
                             backend + "\", allowed hardware",
                         0),
              0u)
        << what;
  }
}

TEST(Protocol, InTheSchema) {
  bool found = false;
  for (const schema_entry& e : config_schema()) {
    if (e.key != "storage.protocol") continue;
    found = true;
    EXPECT_EQ(e.default_value, "\"hardware\"");
    EXPECT_EQ(e.allowed, "hardware|emulator");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace bam
