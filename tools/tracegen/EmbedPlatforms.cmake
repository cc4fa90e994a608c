# Writes a C++ file holding every platform description under platforms/ (SimGrid XML) as a
# string, so that `tracegen simulate --platform NAME` needs no file beside the binary. Invoked at
# build time with -DPLATFORM_DIR=... -DOUTPUT=...
file(GLOB platforms RELATIVE ${PLATFORM_DIR} ${PLATFORM_DIR}/*.xml)
list(SORT platforms)
set(body "// Generated from platforms/ by tools/tracegen/EmbedPlatforms.cmake. Do not edit.\n#include <map>\n#include <string>\n#include <string_view>\nnamespace tracegen {\nconst std::map<std::string, std::string_view, std::less<>>& bundledPlatforms() {\n  static const std::map<std::string, std::string_view, std::less<>> kPlatforms = {\n")
foreach(p ${platforms})
  file(READ ${PLATFORM_DIR}/${p} text)
  string(REGEX REPLACE "\\.xml$" "" name ${p})
  string(APPEND body "    {\"${name}\", R\"tgplatform(${text})tgplatform\"},\n")
endforeach()
string(APPEND body "  };\n  return kPlatforms;\n}\n}  // namespace tracegen\n")
file(WRITE ${OUTPUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
