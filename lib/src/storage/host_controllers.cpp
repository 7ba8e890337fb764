// Host emulated controllers for the tools' host backends.
#include "bam/storage/host_controllers.hpp"

#include <fmt/format.h>

#include "bam/emu/dma_window.hpp"
#include "bam/emu/faults_of_config.hpp"
#include "bam/emu/timing_presets.hpp"

namespace bam {
namespace {

/// MDTS of the emulated controllers: 2^8 pages of 4 KiB = 1 MiB per command.
constexpr std::uint32_t emulated_mdts = 8;

}  // namespace

class host_controllers::shared_allocator final : public dma_allocator {
 public:
  explicit shared_allocator(host_controllers& c) : ctrls_(c) {}
  dma_region allocate(std::size_t bytes) override {
    dma_region r = ctrls_.controller(0).allocator().allocate(bytes);
    for (std::uint32_t d = 1; d < ctrls_.size(); ++d)
      ctrls_.controller(d).window().add(r.bus_address(0), r.size);
    return r;
  }
  void free(dma_region& r) noexcept override {
    if (r.vaddr == nullptr) return;
    for (std::uint32_t d = 1; d < ctrls_.size(); ++d)
      ctrls_.controller(d).window().remove(r.bus_address(0));
    ctrls_.controller(0).allocator().free(r);
  }
  std::uint32_t page_size_log2() const override {
    return ctrls_.controller(0).allocator().page_size_log2();
  }

 private:
  host_controllers& ctrls_;
};

host_controllers::host_controllers(const run_config& c) {
  const std::uint32_t n = c.storage.ssd_count;
  if (n > max_ssds) {
    throw config_error("storage.ssd_count",
                       fmt::format("{} is above the {} SSDs backend \"host\" emulates, allowed "
                                   "[1, {}]",
                                   n, max_ssds, max_ssds));
  }
  const std::optional<ssd_model> model = resolve(c.storage.model);
  if (!model)
    throw config_error("storage.model", "unknown preset \"" + c.storage.model.name + "\"");
  const emu::timing_model timing = emu::from_ssd_model(*model);
  for (std::uint32_t i = 0; i < n; ++i) {
    emu::controller_options o;
    o.lba_size = c.storage.lba_size;
    o.namespace_lbas = c.storage.media.size_bytes / c.storage.lba_size;
    o.max_queue_entries = 4096;
    o.max_io_queue_pairs = 1024;
    o.mdts = emulated_mdts;
    o.worker_threads = 1;
    o.serial = fmt::format("BAMHOST{:04}", i);
    o.faults = emu::fault_config_of(c, i);
    o.fault_queue_base = i * c.queues.pairs_per_ssd;  // the GPU engine's queue numbers
    o.timing = timing;  // storage.model: the caps the GPU engine books
    if (c.storage.media.kind == media_kind::file) {
      o.media = emu::media_kind::file;
      o.media_path = n == 1 ? c.storage.media.path : fmt::format("{}.{}", c.storage.media.path, i);
    }
    ssd s;
    s.controller = std::make_unique<emu::emulated_controller>(o);
    s.controller->start();
    driver_options d;
    d.io_queue_pairs = c.queues.pairs_per_ssd;
    s.driver =
        std::make_unique<controller_driver>(s.controller->bar(), s.controller->allocator(), d);
    ssds_.push_back(std::move(s));
  }
  shared_ = std::make_unique<shared_allocator>(*this);  // made once: threads may share it
}

dma_allocator& host_controllers::shared_memory() {
  return *shared_;
}

host_controllers::~host_controllers() {
  for (ssd& s : ssds_) {
    if (s.driver) s.driver->shutdown();
  }
}

backend_caps host_controllers::caps() const {
  const controller_info& info = ssds_.front().driver->info();
  backend_caps caps;
  caps.max_ssds = max_ssds;
  caps.max_queue_entries = info.max_queue_entries;
  caps.max_pairs_per_ssd = info.io_queue_pairs;
  caps.max_transfer_bytes = info.max_transfer_bytes;
  caps.media_bytes = info.namespace_lbas * info.lba_size;
  return caps;
}

}  // namespace bam
