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
// zstd's level for traces: traces are small text, so a high level costs little time.
constexpr int kTraceCompressionLevel = 19;

// True if the bytes start with a zstd frame's magic number (28 b5 2f fd).
bool isZstdCompressed(std::string_view bytes);

// Decompresses every frame of `bytes`. Throws InputError naming `name` when the data is not
// valid zstd, is truncated, or decompresses to more than `limit` bytes.
std::string decompressTrace(const std::string& name, std::string_view bytes, std::size_t limit = kMaxTraceTextBytes);

// One zstd frame holding `text` (with its size and a checksum).
std::string compressTrace(std::string_view text, int level = kTraceCompressionLevel);

}  // namespace tracegen
