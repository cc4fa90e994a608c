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

// True if the bytes start with a zstd frame's magic number (28 b5 2f fd).
bool isZstdCompressed(std::string_view bytes);

// Decompresses every frame of `bytes`. Throws InputError naming `name` when the data is not
// valid zstd, is truncated, or decompresses to more than `limit` bytes.
std::string decompressTrace(const std::string& name, std::string_view bytes, std::size_t limit = kMaxTraceTextBytes);

// One zstd frame holding `text` (with its size and a checksum), at `level`, or where it is 0 at
// traceCompressionLevel(text.size()).
std::string compressTrace(std::string_view text, int level = 0);

}  // namespace tracegen
