// bam/io/input_error.hpp: API. What the library's readers of input files throw for an input that
// is missing, unreadable or malformed: the message names the file (and the line or byte offset
// where there is one). Tools answer it with exit status 2 (invalid input); other
// std::runtime_errors (a full disk while writing, ...) are failures of the run. The graph loaders
// throw it as bam::graph::input_error, the taxi CSV importer as bam::taxi::csv_error (with the
// file and line as members).
#pragma once
#include <stdexcept>

namespace bam {

struct input_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace bam
