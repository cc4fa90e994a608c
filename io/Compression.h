// zstd compression of trace files. Traces are written compressed by default (the recorder,
// `tracegen convert` and `lower`); every reader accepts compressed input transparently: a file
// that starts with zstd's magic number is decompressed before it is read as text, whatever its
// name, and diagnostics name the file and the line of the decompressed text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tracegen {

// The largest decompressed text a reader accepts (1 GiB): a file that declares or produces
// more is refused with an error, before memory in proportion to what it declares is taken.
constexpr std::size_t kMaxTraceTextBytes = std::size_t{1} << 30;
// zstd's level for traces: most traces are small text (a few to a few hundred KB), for which a
// high level costs little time; a trace that compresses poorly in the recorder (apitour: 2-4 MB
// of text) took 1.3-1.5 s of CPU at MPI_Finalize at level 19, and takes about an eighth of that
// at level 15 for a file about 9% larger. So the level follows the text's size.
constexpr int kTraceCompressionLevel = 19;
constexpr int kLargeTraceCompressionLevel = 15;
constexpr std::size_t kLargeTraceTextBytes = std::size_t{512} << 10;
inline int traceCompressionLevel(std::size_t textBytes) {
  return textBytes > kLargeTraceTextBytes ? kLargeTraceCompressionLevel : kTraceCompressionLevel;
}

// The highest zstd level (of 19, 17, 15, 12, 9, 6, 3) expected to compress `textBytes` of trace
// text within `budgetSeconds`, and 3 when none is; `nsPerByte`, if given, receives the level's
// expected cost. The expected costs are upper figures measured with `zstd -b` on recorded traces
// on the 2-core test machine (LAMMPS's 435 KB of text and apitour's 2.4 MB, the slower of the
// two per level): 490 ns per byte at level 19, 150 at 17, 50 at 15, 14 at 12, 7.8 at 9, 5.4 at
// 6, 1.2 at 3. The recorder compresses within a budget of the run's time (docs/recording.md,
// "Compressed output"): level 19 took 0.1 s of a 0.4 s LAMMPS run for a file 9% smaller than
// level 15's, which took 0.01 s.
int compressionLevelWithin(std::size_t textBytes, double budgetSeconds, double* nsPerByte = nullptr);

// True if the bytes start with a zstd frame's magic number (28 b5 2f fd).
bool isZstdCompressed(std::string_view bytes);

// Decompresses every frame of `bytes`. Throws InputError naming `name` when the data is not
// valid zstd, is truncated, or decompresses to more than `limit` bytes.
std::string decompressTrace(const std::string& name, std::string_view bytes, std::size_t limit = kMaxTraceTextBytes);

// One zstd frame holding `text` (with its size and a checksum), at `level`, or where it is 0 at
// traceCompressionLevel(text.size()).
std::string compressTrace(std::string_view text, int level = 0);

}  // namespace tracegen
