# Writes a header that holds the text of IN as `inline constexpr const char NAME[]`.
file(READ ${IN} CONTENT)
set(DELIM "qgpu_embed")
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\n#pragma once\ninline constexpr const char ${NAME}[] = R\"${DELIM}(${CONTENT})${DELIM}\";\n")
