// Host-side checks of the module's user interface that need no module: the UAPI layout as C++
// sees it, and kmod_device's errors on files that are not bamkit devices. The module itself is
// tested in the QEMU guest (tests/qemu).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <system_error>

#include "bam/kmod/kmod_device.hpp"
#include "bam/kmod/uapi.h"

namespace {

TEST(kmod_uapi, layout_is_fixed) {
  EXPECT_EQ(sizeof(bamkit_info), 48u);
  EXPECT_EQ(offsetof(bamkit_info, bar_size), 8u);
  EXPECT_EQ(offsetof(bamkit_info, minor), 40u);
  EXPECT_EQ(sizeof(bamkit_map), 32u);
  EXPECT_EQ(offsetof(bamkit_map, handle), 16u);
  EXPECT_EQ(sizeof(bamkit_map_addrs), 24u);
  EXPECT_EQ(sizeof(bamkit_unmap), 16u);
  EXPECT_EQ(offsetof(bamkit_unmap, flags), 8u);
  // The ioctl numbers carry the struct sizes and both directions.
  EXPECT_EQ(_IOC_SIZE(BAMKIT_IOC_GET_INFO), sizeof(bamkit_info));
  EXPECT_EQ(_IOC_SIZE(BAMKIT_IOC_MAP_HOST), sizeof(bamkit_map));
  EXPECT_EQ(_IOC_SIZE(BAMKIT_IOC_MAP_GET_ADDRS), sizeof(bamkit_map_addrs));
  EXPECT_EQ(_IOC_SIZE(BAMKIT_IOC_UNMAP), sizeof(bamkit_unmap));
  EXPECT_EQ(_IOC_DIR(BAMKIT_IOC_MAP_GPU), static_cast<unsigned>(_IOC_READ | _IOC_WRITE));
  EXPECT_NE(BAMKIT_IOC_MAP_HOST, BAMKIT_IOC_MAP_GPU);
}

int error_of(const char* path) {
  try {
    bam::kmod_device dev(path);
  } catch (const std::system_error& e) {
    return e.code().value();
  }
  return 0;
}

TEST(kmod_device, missing_device_file_throws_enoent) {
  EXPECT_EQ(error_of("/nonexistent/bamkit-nvme0"), ENOENT);
}

TEST(kmod_device, other_character_device_throws_enotty) {
  // /dev/null accepts open but knows no bamkit ioctl.
  EXPECT_EQ(error_of("/dev/null"), ENOTTY);
}

}  // namespace
