// Drawing inspect's pictures (viz/CommMatrix.h's figures) to SVG or PNG with cairo.
#pragma once

#include <string>

#include "viz/CommMatrix.h"

namespace tracegen {

enum class PictureFormat { Svg, Png };

// The format `path` asks for by its extension (.svg or .png, any case); throws InputError
// naming `option` otherwise.
PictureFormat pictureFormatOf(const std::string& path, const std::string& option);

// Writes the communication matrix (and the collectives panel) of trace `title` to `path`.
// Throws InputError when the file cannot be written.
void drawCommMatrix(const CommMatrix& m, const std::string& title, const std::string& path);

// Writes the per-rank compute and MPI times, stacked, with the slowest rank marked.
void drawRankTimes(const RankTimes& t, const std::string& title, const std::string& path);

}  // namespace tracegen
