# The project's one LibTorch: the one inside PyPI's torch wheel (scripts/install-libtorch.sh installs it into
# the shared Python environment and prints the directory). QGPU_LIBTORCH is that torch package directory;
# by default it is looked for in ${QGPU_VENV:-~/.cache/qgpu/venv}.
#
# Only libtorch_cpu and libc10 are linked: the CUDA half (libtorch_cuda.so and the nvidia libraries it
# pulls in, about 3 GB of mappings) is loaded at run time only when a CUDA device is asked for and present
# (TorchSetup.cpp), so a CPU-only process starts quickly and a machine without a GPU needs no CUDA at all.
# The wheel's own CMake config is not used: it insists on a CUDA toolkit at configure time.
set(QGPU_LIBTORCH "" CACHE PATH "PyPI torch package directory (.../site-packages/torch)")
if(NOT QGPU_LIBTORCH)
  if(DEFINED ENV{QGPU_VENV})
    set(_qgpu_venv "$ENV{QGPU_VENV}")
  elseif(DEFINED ENV{XDG_CACHE_HOME})
    set(_qgpu_venv "$ENV{XDG_CACHE_HOME}/qgpu/venv")
  else()
    set(_qgpu_venv "$ENV{HOME}/.cache/qgpu/venv")
  endif()
  file(GLOB _qgpu_torch_dirs "${_qgpu_venv}/lib/python3*/site-packages/torch")
  list(GET _qgpu_torch_dirs 0 _qgpu_torch_dir)
  set(QGPU_LIBTORCH "${_qgpu_torch_dir}" CACHE PATH "PyPI torch package directory (.../site-packages/torch)" FORCE)
endif()
if(NOT EXISTS "${QGPU_LIBTORCH}/lib/libtorch_cpu.so" OR NOT EXISTS "${QGPU_LIBTORCH}/include/ATen/ATen.h")
  message(FATAL_ERROR "LibTorch not found at '${QGPU_LIBTORCH}': run scripts/install-libtorch.sh and pass "
                      "-DQGPU_LIBTORCH=<the directory it prints>")
endif()
file(READ "${QGPU_LIBTORCH}/version.py" _qgpu_torch_version_py)
string(REGEX MATCH "__version__ = '([^']+)'" _ "${_qgpu_torch_version_py}")
message(STATUS "LibTorch ${CMAKE_MATCH_1}: ${QGPU_LIBTORCH}")

add_library(qgpu_torch INTERFACE)
target_include_directories(qgpu_torch SYSTEM INTERFACE "${QGPU_LIBTORCH}/include"
                                                       "${QGPU_LIBTORCH}/include/torch/csrc/api/include")
target_link_libraries(qgpu_torch INTERFACE "${QGPU_LIBTORCH}/lib/libtorch_cpu.so" "${QGPU_LIBTORCH}/lib/libc10.so")
target_link_options(qgpu_torch INTERFACE "LINKER:-rpath,${QGPU_LIBTORCH}/lib")
target_compile_definitions(qgpu_torch INTERFACE "QGPU_TORCH_CUDA_LIBRARY=\"${QGPU_LIBTORCH}/lib/libtorch_cuda.so\"")
set(TORCH_LIBRARIES qgpu_torch)
