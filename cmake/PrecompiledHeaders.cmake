# Precompiled headers: the external headers that most sources of a target include, parsed once per target
# instead of once per source. GoogleTest alone is about half of what a short test source costs to compile,
# and the Qt widget headers most of what a view costs (docs/ARCHITECTURE.md, "Build").

# A GoogleTest executable: GoogleTest and the standard headers tests use most.
function(qgpu_test_headers target)
  target_precompile_headers(${target} PRIVATE <gtest/gtest.h> <algorithm> <cmath> <cstdint> <filesystem>
                            <fstream> <functional> <map> <memory> <random> <sstream> <string> <vector>)
endfunction()

# A target of Qt widgets (the views and their tests).
function(qgpu_widget_headers target)
  target_precompile_headers(${target} PRIVATE <QApplication> <QHBoxLayout> <QHeaderView> <QLabel> <QLineEdit>
                            <QListWidget> <QString> <QTableWidget> <QVBoxLayout> <QWidget> <functional>
                            <memory> <string> <vector>)
endfunction()
