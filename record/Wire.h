// Byte encoding of what the recorder's ranks send each other at Finalize: cluster tables,
// traces (the trace model, complete) and lists of partial traces.
//
// Integers are LEB128 varints (zigzag for signed values), doubles their 8 raw bytes, strings and
// lists length-prefixed. Both ends run the same library build, so there is no versioning; a
// truncated or malformed buffer throws std::runtime_error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/Trace.h"
#include "record/Clustering.h"

namespace tracegen::record {

using Bytes = std::vector<std::uint8_t>;

Bytes encodeTable(const ClusterTable& t);
ClusterTable decodeTable(const Bytes& b);

Bytes encodeTrace(const Trace& t);
Trace decodeTrace(const Bytes& b);

Bytes encodePartials(const std::vector<Partial>& p);
std::vector<Partial> decodePartials(const Bytes& b);

}  // namespace tracegen::record
