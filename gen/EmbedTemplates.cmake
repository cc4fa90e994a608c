# Writes a C++ file holding every template file under templates/ as a string, so that tracegen is
# self-contained. Invoked at build time with -DTEMPLATE_DIR=... -DOUTPUT=...
# The templates (*.mustache) and the C benchmarks' runtime (c/runtime/*.h, *.c: real C, embedded
# as it is).
file(GLOB_RECURSE templates RELATIVE ${TEMPLATE_DIR} ${TEMPLATE_DIR}/*.mustache ${TEMPLATE_DIR}/c/runtime/*.h
     ${TEMPLATE_DIR}/c/runtime/*.c)
list(SORT templates)
set(body "// Generated from templates/ by gen/EmbedTemplates.cmake. Do not edit.\n#include <map>\n#include <stdexcept>\n#include <string>\n#include \"gen/Backend.h\"\nnamespace tracegen::gen {\nstd::string_view templateText(std::string_view path) {\n  static const std::map<std::string, std::string, std::less<>> kTemplates = {\n")
foreach(t ${templates})
  file(READ ${TEMPLATE_DIR}/${t} text)
  string(APPEND body "    {\"${t}\", R\"tgtemplate(${text})tgtemplate\"},\n")
endforeach()
string(APPEND body "  };\n  auto it = kTemplates.find(path);\n  if (it == kTemplates.end()) throw std::out_of_range(\"no template \" + std::string(path));\n  return it->second;\n}\n}  // namespace tracegen::gen\n")
file(WRITE ${OUTPUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
