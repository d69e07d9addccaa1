# Heavy dependencies: Debian 12 packages (scripts/install-deps.sh installs them) and PyPI's LibTorch
# (LibTorch.cmake); Clang's are in ClangDependency.cmake.

include(cmake/LibTorch.cmake)

# Qt 6 and QScintilla (no CMake config of its own).
find_package(Qt6 REQUIRED COMPONENTS Widgets OpenGL Test)
find_library(QSCINTILLA_LIBRARY NAMES qscintilla2_qt6 REQUIRED)
find_path(QSCINTILLA_INCLUDE_DIR Qsci/qsciscintilla.h PATH_SUFFIXES qt6 x86_64-linux-gnu/qt6 REQUIRED)

# Dear ImGui 1.86 (Debian's static library includes the OpenGL3 backend).
find_library(IMGUI_LIBRARY NAMES imgui REQUIRED)
find_library(STB_LIBRARY NAMES stb REQUIRED)  # imgui's font atlas uses stb_truetype/stb_rect_pack
find_path(IMGUI_INCLUDE_DIR imgui.h PATH_SUFFIXES imgui REQUIRED)
find_package(OpenGL REQUIRED)
