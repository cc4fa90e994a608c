// Compiling generated C in unit tests: with mpicc (Open MPI) and, where its header is installed,
// against MPICH's header too (GCC 12 warns on some calls with MPICH 4.0.2's header and not with
// Open MPI's), both with -Wall -Wextra -Werror. Shared by the tests that generate C.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace tracegen::testing {

// Compiles `source` (-c) with `compiler`; the compiler's output, empty on success.
inline std::string compileErrors(const std::string& compiler, const std::string& source, const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tracegen-" + tag + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "bench.c", log = dir / "log.txt";
  std::ofstream(file) << source;
  const std::string cmd =
      compiler + " -c -o " + (dir / "bench.o").string() + " " + file.string() + " > " + log.string() + " 2>&1";
  std::string output;
  if (const int status = std::system(cmd.c_str()); status != 0) {
    std::ifstream in(log);
    output = std::string(std::istreambuf_iterator<char>(in), {});
    if (output.empty()) output = "exit status " + std::to_string(status);
  }
  fs::remove_all(dir);
  return output;
}

// MPICH's include directory: TRACEGEN_MPICH_INCLUDE (scripts/test.sh sets it from the header
// setup-debian.sh unpacks), else an installed libmpich-dev; empty when there is none.
inline std::string mpichInclude() {
  if (const char* dir = std::getenv("TRACEGEN_MPICH_INCLUDE"); dir && *dir) return dir;
  for (const char* dir : {"/usr/include/x86_64-linux-gnu/mpich", "/usr/include/mpich", "/usr/include/aarch64-linux-gnu/mpich"})
    if (std::filesystem::exists(std::string(dir) + "/mpi.h")) return dir;
  return "";
}

inline void expectCompilesUnderBothMpis(const std::string& source, const std::string& tag) {
  if (std::system("command -v mpicc > /dev/null 2>&1") == 0) {
    EXPECT_EQ(compileErrors("mpicc -std=c11 -Wall -Wextra -Werror -O2", source, tag + "-ompi"), "") << source;
  }
  if (const std::string mpich = mpichInclude(); !mpich.empty()) {
    EXPECT_EQ(compileErrors("cc -std=c11 -Wall -Wextra -Werror -O2 -I" + mpich, source, tag + "-mpich"), "") << source;
  }
}

// A directory of its own for one test's files (under the system's temporary directory, named
// by `tag` and the process), removed afterwards.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& tag)
      : path(std::filesystem::temp_directory_path() / ("tracegen-" + tag + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  void write(const std::string& name, std::string_view text) const { std::ofstream(path / name) << text; }
};

// Runs the shell `command` in `dir`: empty when it succeeded, else its exit status and output.
inline std::string run(const ScratchDir& dir, const std::string& command) {
  const std::filesystem::path log = dir.path / "log.txt";
  const std::string cmd = "cd " + dir.path.string() + " && " + command + " > " + log.string() + " 2>&1";
  if (const int status = std::system(cmd.c_str()); status != 0) {
    std::ifstream in(log);
    std::string output(std::istreambuf_iterator<char>(in), {});
    return "exit status " + std::to_string(status) + ": " + output;
  }
  return "";
}

}  // namespace tracegen::testing
