// bam-ssd-copy: puts a file onto an SSD at an LBA offset (put) and reads bytes back into a file
// (get), through one BaM queue pair driven by this process.
//   bam-ssd-copy put --device /dev/bamkit-nvme0 --lba N FILE
//   bam-ssd-copy get --device /dev/bamkit-nvme0 --lba N --bytes B OUT
// --emulated MEDIA uses a host emulated controller whose blocks live in the file MEDIA instead.
// Exit statuses (bam/harness/exit_status.hpp): 0, 1 the copy could not be done, 2 invalid command
// line or LBAs, 3 an NVMe command failed or timed out.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <memory>
#include <string>

#include "bam/driver/controller_driver.hpp"
#include "bam/emu/emulated_controller.hpp"
#include "bam/harness/exit_status.hpp"
#include "bam/io/ssd_copy.hpp"
#include "bam/kmod/kmod_controller.hpp"

namespace {

struct args {
  std::string command;  // put | get
  std::string device;
  std::string emulated;  // media file
  std::uint64_t emulated_bytes = 64u << 20;
  std::uint32_t emulated_lba_size = 512;
  std::uint64_t lba = 0;
  std::uint64_t bytes = 0;
  std::string file;
};

template <class Doorbell>
bam::ssd_copy_result copy(const args& a, bam::controller_driver& drv, bam::dma_allocator& alloc) {
  bam::io_queue_pair qp = drv.create_io_queue_pair(2);
  const bam::controller_info& info = drv.info();
  bam::ssd_copy_options o;
  o.nsid = info.nsid;
  o.lba_size = info.lba_size;
  o.namespace_lbas = info.namespace_lbas;
  o.max_transfer_bytes = info.max_transfer_bytes;
  const auto q = qp.template ref<Doorbell>();
  if (a.command == "put") return bam::write_file_to_ssd(q, alloc, a.file, a.lba, o);
  return bam::read_ssd_to_file(q, alloc, a.lba, a.bytes, a.file, o);
}

int run(const args& a) {
  bam::ssd_copy_result r;
  std::uint32_t lba_size = 0;
  if (!a.emulated.empty()) {
    bam::emu::controller_options o;
    o.lba_size = a.emulated_lba_size;
    o.namespace_lbas = a.emulated_bytes / a.emulated_lba_size;
    o.media = bam::emu::media_kind::file;
    o.media_path = a.emulated;
    bam::emu::emulated_controller ctrl(o);
    ctrl.start();
    bam::controller_driver drv(ctrl.bar(), ctrl.allocator(), {});
    lba_size = drv.info().lba_size;
    r = copy<bam::memory_doorbell>(a, drv, ctrl.allocator());
    drv.shutdown();  // the emulated controller flushes its media file on stop
  } else {
    bam::kmod_controller ssd(a.device);
    lba_size = ssd.info().lba_size;
    r = copy<bam::mmio_doorbell>(a, ssd.driver(), ssd.data_allocator());
  }
  if (a.command == "put") {
    fmt::print("put {}: {} bytes at LBA {}..{} ({} B LBAs, {} commands){}\n", a.file, r.bytes,
               a.lba, a.lba + r.lbas, lba_size, r.commands,
               r.padding_bytes
                   ? fmt::format("; last LBA padded with {} zero bytes", r.padding_bytes)
                   : std::string());
  } else {
    fmt::print("get {}: {} bytes from LBA {}..{} ({} B LBAs, {} commands)\n", a.file, r.bytes,
               a.lba, a.lba + r.lbas, lba_size, r.commands);
  }
  return bam::exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("bam-ssd-copy: put a file onto an SSD at an LBA offset, or get bytes back");
  app.require_subcommand(1);
  args a;
  auto common = [&](CLI::App* s) {
    auto* dev =
        s->add_option("--device", a.device, "controller bound to bamkit (/dev/bamkit-nvmeN)");
    auto* emu = s->add_option("--emulated", a.emulated,
                              "use a host emulated controller with this media file instead");
    dev->excludes(emu);
    s->add_option("--emulated-bytes", a.emulated_bytes, "size of the emulated namespace")
        ->capture_default_str();
    s->add_option("--emulated-lba-size", a.emulated_lba_size, "512 or 4096")->capture_default_str();
    s->add_option("--lba", a.lba, "first LBA")->required();
  };
  CLI::App* put = app.add_subcommand("put",
                                     "write FILE's bytes from --lba on (the last LBA is "
                                     "padded with zeros)");
  common(put);
  put->add_option("FILE", a.file, "file to put")->required()->check(CLI::ExistingFile);
  CLI::App* get = app.add_subcommand("get", "read --bytes bytes from --lba on into OUT");
  common(get);
  get->add_option("--bytes", a.bytes, "bytes to read")->required();
  get->add_option("OUT", a.file, "file to write")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? bam::exit_ok : bam::exit_invalid_input;
  }
  a.command = put->parsed() ? "put" : "get";
  if (a.device.empty() && a.emulated.empty()) {
    fmt::print(stderr, "bam-ssd-copy: --device or --emulated is required\n");
    return bam::exit_invalid_input;
  }
  try {
    return run(a);
  } catch (const bam::ssd_io_error& e) {  // a command failed or timed out
    fmt::print(stderr, "bam-ssd-copy: I/O failed: {}\n", e.what());
    return bam::exit_io_errors;
  } catch (const std::invalid_argument& e) {  // the LBAs or sizes asked for do not fit
    fmt::print(stderr, "bam-ssd-copy: invalid input: {}\n", e.what());
    return bam::exit_invalid_input;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bam-ssd-copy: {}\n", e.what());
    return bam::exit_run_failed;
  }
}
