// run_result helpers.
#include "bam/report/run_result.hpp"

#include <algorithm>

namespace bam {

void direction_result::merge(const direction_result& o) {
  io_bytes += o.io_bytes;
  ios += o.ios;
  short_ios += o.short_ios;
  drop_ios += o.drop_ios;
  runtime_ns = std::max(runtime_ns, o.runtime_ns);
  lat.merge(o.lat);
}

latency_histogram run_result::all_latency() const {
  latency_histogram h = read.lat;
  h.merge(write.lat);
  h.merge(trim.lat);
  return h;
}

double run_result::in_flight_mean() const {
  const latency_histogram h = all_latency();
  if (h.count == 0 || runtime_ns == 0) return 0.0;
  return double(total_ios()) * h.mean() / double(runtime_ns);
}

}  // namespace bam
