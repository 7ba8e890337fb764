// bam/detail/expects.hpp: API. BAM_EXPECTS(cond, message): a precondition of host code that the
// layer above has already decided (a config range the schema owns, a size validate() checked).
// Always on, whatever NDEBUG says: a broken precondition throws std::logic_error naming the
// file:line, the condition and the message, e.g. "queue_pair.cpp:20: precondition failed:
// n >= min_queue_entries && n <= max_queue_entries (queue_pair: sq_entries = 1 outside [2,
// 65536])" (the file as the compiler names it).
// It marks a bug in the caller, never a user's bad input: users' values are refused with a
// config_error naming the key before they reach the layer that states the precondition.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace bam::detail {

/// Throws the std::logic_error of a failed BAM_EXPECTS.
[[noreturn]] inline void precondition_failed(std::string_view file, int line,
                                             std::string_view condition, std::string_view message) {
  std::string what(file);
  what += ':';
  what += std::to_string(line);
  what += ": precondition failed: ";
  what += condition;
  if (!message.empty()) {
    what += " (";
    what += message;
    what += ')';
  }
  throw std::logic_error(what);
}

}  // namespace bam::detail

/// Checks a precondition of host code; `message` is anything convertible to std::string_view and
/// is evaluated only when `cond` is false.
#define BAM_EXPECTS(cond, message)                                                         \
  do {                                                                                     \
    if (!(cond)) ::bam::detail::precondition_failed(__FILE__, __LINE__, #cond, (message)); \
  } while (false)
