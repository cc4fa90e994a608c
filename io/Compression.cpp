#include "io/Compression.h"

#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <stdexcept>
#include <zstd.h>

#include "ir/Diagnostics.h"

namespace tracegen {

namespace {
struct DctxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct CctxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
const char* const kLimitHint = "tracegen reads traces of at most 1 GiB of text; decompress it with `zstdcat` to look at it";
}  // namespace

bool isZstdCompressed(std::string_view bytes) {
  return bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0x28 && static_cast<unsigned char>(bytes[1]) == 0xb5 &&
         static_cast<unsigned char>(bytes[2]) == 0x2f && static_cast<unsigned char>(bytes[3]) == 0xfd;
}

std::string decompressTrace(const std::string& name, std::string_view bytes, std::size_t limit) {
  // A frame may declare its decompressed size: one that declares more than the limit is
  // refused at once. The declared size is never used to allocate: the output grows with what
  // actually comes out, and stops at the limit.
  const unsigned long long declared = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR)
    throw InputError(name, 0, "compressed trace is truncated or not a valid zstd frame", {},
                     "the file starts with zstd's magic number; check it with `zstd -t`");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > limit)
    throw InputError(name, 0,
                     fmt::format("compressed trace declares {} bytes of text, more than the limit of {} bytes", declared, limit),
                     {}, kLimitHint);
  std::unique_ptr<ZSTD_DCtx, DctxFree> dctx(ZSTD_createDCtx());
  if (!dctx) throw std::bad_alloc();
  // Refuse frames that need a window beyond 128 MiB (zstd's default limit, stated here).
  ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, 27);
  std::string out;
  const std::size_t chunk = ZSTD_DStreamOutSize();
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  std::size_t pending = 1;  // 0 once the last frame is complete
  while (in.pos < in.size || pending != 0) {
    const std::size_t have = out.size();
    if (have >= limit + 1) break;
    const std::size_t room = std::min(chunk, limit + 1 - have);
    out.resize(have + room);
    ZSTD_outBuffer ob{out.data() + have, room, 0};
    const std::size_t before = in.pos;
    pending = ZSTD_decompressStream(dctx.get(), &ob, &in);
    out.resize(have + ob.pos);
    if (ZSTD_isError(pending))
      throw InputError(name, 0, fmt::format("compressed trace is corrupt: {}", ZSTD_getErrorName(pending)), {},
                       "the file starts with zstd's magic number but does not decompress; check it with `zstd -t`");
    if (in.pos == in.size && ob.pos == 0 && in.pos == before && pending != 0)
      throw InputError(name, 0, "compressed trace is truncated (its last zstd frame is incomplete)", {},
                       "the file was cut short; check it with `zstd -t`");
  }
  if (out.size() > limit)
    throw InputError(name, 0, fmt::format("compressed trace decompresses to more than the limit of {} bytes", limit), {},
                     kLimitHint);
  return out;
}

int compressionLevelWithin(std::size_t textBytes, double budgetSeconds, double* nsPerByte) {
  struct LevelCost {
    int level;
    double nsPerByte;
  };
  static constexpr LevelCost kCosts[] = {{19, 490}, {17, 150}, {15, 50}, {12, 14}, {9, 7.8}, {6, 5.4}, {3, 1.2}};
  for (const LevelCost& c : kCosts)
    if (static_cast<double>(textBytes) * c.nsPerByte * 1e-9 <= budgetSeconds || c.level == 3) {
      if (nsPerByte) *nsPerByte = c.nsPerByte;
      return c.level;
    }
  return 3;  // not reached: the last entry is taken whatever the budget
}

std::string compressTrace(std::string_view text, int level) {
  std::unique_ptr<ZSTD_CCtx, CctxFree> cctx(ZSTD_createCCtx());
  if (!cctx) throw std::bad_alloc();
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level != 0 ? level : traceCompressionLevel(text.size()));
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), text.data(), text.size());
  if (ZSTD_isError(n)) throw std::runtime_error(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(n)));
  out.resize(n);
  return out;
}

}  // namespace tracegen
