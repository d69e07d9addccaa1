# qgpu_embed_text(OUT_VAR INPUT NAME HEADER): a build step that writes HEADER (under this directory's
# generated/) holding INPUT's text as `inline constexpr const char NAME[]`; OUT_VAR names the header, to
# list among a target's sources. The target adds ${CMAKE_CURRENT_BINARY_DIR}/generated to its includes.
# An `#include "FILE.h"` of a header beside INPUT is replaced by its text (EmbedText.cmake).
function(qgpu_embed_text out_var input name header)
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/generated/${header})
  get_filename_component(dir ${input} DIRECTORY)
  file(GLOB siblings CONFIGURE_DEPENDS ${dir}/*.h)  # what an #include in INPUT may inline
  add_custom_command(
    OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -DIN=${input} -DOUT=${generated} -DNAME=${name}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
    DEPENDS ${input} ${siblings} ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake)
  set(${out_var} ${generated} PARENT_SCOPE)
endfunction()
