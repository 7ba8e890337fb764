// The nvme backend's keys in the shared config: storage.device_paths checks (count, existence,
// character device, duplicates) and storage.nvme_ordering_read (parse, validate, resolve, echo).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

json nvme(json paths) {
  const auto n = paths.size();
  return json{{"storage", {{"backend", "nvme"}, {"ssd_count", n}, {"device_paths", paths}}}};
}

TEST(DevicePaths, CharacterDevicesOnePerSsdAreAccepted) {
  EXPECT_EQ(validation_error(nvme({"/dev/null"})), "");
  EXPECT_EQ(validation_error(nvme({"/dev/null", "/dev/zero"})), "");
}

TEST(DevicePaths, EachRuleNamesTheKey) {
  const std::string file = testing::TempDir() + "bamkit-not-a-device";
  std::ofstream(file) << "x";
  const std::string missing = testing::TempDir() + "bamkit-nvme-missing";
  std::filesystem::remove(missing);
  struct bad {
    json doc;
    std::string expected;
  };
  json wrong_count = nvme({"/dev/null"});
  wrong_count["storage"]["ssd_count"] = 2;
  const bad cases[] = {
      {wrong_count, "storage.device_paths: 1 device file(s) for storage.ssd_count = 2"},
      {nvme({missing}), "storage.device_paths: \"" + missing + "\" does not exist"},
      {nvme({file}), "storage.device_paths: \"" + file + "\" is not a character device"},
      {nvme({"/dev/null", "/dev/null"}), "storage.device_paths: \"/dev/null\" is given twice"},
      {nvme({""}), "storage.device_paths: an empty path"},
  };
  for (const bad& b : cases) {
    std::string key;
    const std::string what = validation_error(b.doc, &key);
    EXPECT_EQ(key, "storage.device_paths") << what;
    EXPECT_EQ(what.rfind(b.expected, 0), 0u) << what;
  }
  std::filesystem::remove(file);
}

TEST(DevicePaths, OtherBackendsIgnoreThem) {
  // Paths are only looked at for backend nvme (they may name nothing elsewhere).
  EXPECT_EQ(validation_error(json{{"storage", {{"device_paths", {"/nonexistent/x"}}}}}), "");
}

TEST(OrderingRead, DefaultIsAutoAndResolvesByBackend) {
  run_config c{};
  EXPECT_EQ(c.storage.nvme_ordering_read, "auto");
  EXPECT_FALSE(nvme_ordering_read_enabled(c));  // host
  c.storage.backend = backend_kind::emulated;
  EXPECT_FALSE(nvme_ordering_read_enabled(c));
  c.storage.backend = backend_kind::nvme;
  EXPECT_TRUE(nvme_ordering_read_enabled(c));
  c.storage.nvme_ordering_read = "off";
  EXPECT_FALSE(nvme_ordering_read_enabled(c));
  c.storage.nvme_ordering_read = "on";
  EXPECT_TRUE(nvme_ordering_read_enabled(c));
}

TEST(OrderingRead, ParsedStrictlyAndEchoed) {
  json j = nvme({"/dev/null"});
  j["storage"]["nvme_ordering_read"] = "off";
  const run_config c = parse_config(j);
  EXPECT_EQ(c.storage.nvme_ordering_read, "off");
  EXPECT_EQ(to_json(c)["storage"]["nvme_ordering_read"], "off");  // the report's config echo
  EXPECT_EQ(to_json(run_config{})["storage"]["nvme_ordering_read"], "auto");

  std::string key;
  std::string what = validation_error(json{{"storage", {{"nvme_ordering_read", "yes"}}}}, &key);
  EXPECT_EQ(key, "storage.nvme_ordering_read");
  EXPECT_NE(what.find("\"yes\" is not allowed, allowed auto|on|off"), std::string::npos) << what;
  what = validation_error(json{{"storage", {{"nvme_ordering_read", true}}}}, &key);
  EXPECT_EQ(key, "storage.nvme_ordering_read");
  EXPECT_NE(what.find("expected a string"), std::string::npos) << what;
}

TEST(OrderingRead, OnOnlyWithBackendNvme) {
  json j = nvme({"/dev/null"});
  j["storage"]["nvme_ordering_read"] = "on";
  EXPECT_EQ(validation_error(j), "");
  for (const char* backend : {"host", "emulated"}) {
    std::string key;
    const std::string what = validation_error(
        json{{"storage", {{"backend", backend}, {"nvme_ordering_read", "on"}}}}, &key);
    EXPECT_EQ(key, "storage.nvme_ordering_read");
    EXPECT_NE(what.find(std::string("\"on\" is not allowed with backend \"") + backend +
                        "\", allowed auto|off"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(
      validation_error(json{{"storage", {{"backend", "emulated"}, {"nvme_ordering_read", "off"}}}}),
      "");
}

TEST(OrderingRead, InTheSchema) {
  bool found = false;
  for (const schema_entry& e : config_schema()) {
    if (e.key != "storage.nvme_ordering_read") continue;
    found = true;
    EXPECT_EQ(e.default_value, "\"auto\"");
    EXPECT_EQ(e.allowed, "auto|on|off");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace bam
