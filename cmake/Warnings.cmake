# Project-wide warnings, applied per target with qgpu_warnings(target).
function(qgpu_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
