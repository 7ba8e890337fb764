// run_guarded (commands.hpp): one mapping from what a subcommand throws to an exit status.
#include <fmt/format.h>

#include <new>
#include <stdexcept>

#include "bam/graph/csr.hpp"
#include "bam/harness/exit_status.hpp"
#include "commands.hpp"

namespace bam::data {

int run_guarded(std::string_view command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const bam::graph::input_error& e) {
    fmt::print(stderr, "bam-data {}: invalid input: {}\n", command, e.what());
    return exit_invalid_input;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "bam-data {}: invalid argument: {}\n", command, e.what());
    return exit_invalid_input;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "bam-data {}: out of memory\n", command);
    return exit_run_failed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bam-data {}: failed: {}\n", command, e.what());
    return exit_run_failed;
  }
}

}  // namespace bam::data
