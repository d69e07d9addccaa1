# Writes a header that holds the text of IN as `inline constexpr const char NAME[]`. A line
# `#include "FILE.h"` naming a file beside IN is replaced by that file's text (the embedded header is one
# file in the compile's sandbox).
file(READ ${IN} CONTENT)
get_filename_component(DIR ${IN} DIRECTORY)
string(REGEX MATCHALL "#include \"[A-Za-z0-9_]+\\.h\"" INCLUDES "${CONTENT}")
foreach(LINE IN LISTS INCLUDES)
  string(REGEX REPLACE "#include \"([A-Za-z0-9_]+\\.h)\"" "\\1" FILE_NAME "${LINE}")
  if(EXISTS ${DIR}/${FILE_NAME})
    file(READ ${DIR}/${FILE_NAME} INCLUDED)
    string(REPLACE "${LINE}" "${INCLUDED}" CONTENT "${CONTENT}")
  endif()
endforeach()
set(DELIM "qgpu_embed")
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\n#pragma once\ninline constexpr const char ${NAME}[] = R\"${DELIM}(${CONTENT})${DELIM}\";\n")
