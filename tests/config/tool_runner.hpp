// Test helper: runs a tool binary with arguments, capturing exit status, stdout and stderr.
#pragma once
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bam::test {

struct tool_output {
  int rc = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

/// A fresh directory under the system temp dir, removed at destruction.
class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "bamkit-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Runs `binary args...` with stdout/stderr captured into files of `dir`.
inline tool_output run_tool(const std::string& binary, const std::vector<std::string>& args,
                            const temp_dir& dir) {
  std::string cmd = shell_quote(binary);
  for (const auto& a : args) {
    cmd += ' ';
    cmd += shell_quote(a);
  }
  const std::string out = dir / "stdout.txt";
  const std::string err = dir / "stderr.txt";
  cmd += " >";
  cmd += shell_quote(out);
  cmd += " 2>";
  cmd += shell_quote(err);
  const int status = std::system(cmd.c_str());
  tool_output r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace bam::test
