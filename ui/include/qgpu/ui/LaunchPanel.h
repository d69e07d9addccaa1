// The launch panel: the grid and block shapes and the kernel's arguments as a form, and the same launch
// as JSON text (the format of resources/*/*.json). Either side edits the launch; the other follows. Every
// edit is checked against the machine at once, and the verdict line says what is wrong and where.
#pragma once

#include <QWidget>
#include <array>

#include "qgpu/core/Launch.h"

class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QTableWidget;

namespace qgpu {

struct LaunchSpec;

class LaunchPanel : public QWidget {
    Q_OBJECT
public:
    // The table's columns: the argument's name, its kind (array, zeros, scalar), its type (int or float),
    // its values (an array's words, a zeros array's length, a scalar), and the words an array should hold
    // afterwards (optional).
    enum Column { Name, Kind, Type, Values, Expect };

    explicit LaunchPanel(QWidget* parent = nullptr);
    QString text() const;               // the launch as JSON: what Build parses
    void setText(const QString& json);  // the form follows when the text parses
    QString verdict() const;            // "1 block of 3 threads ..." or the first problem
    bool valid() const { return m_valid; }

    QPlainTextEdit* jsonEditor() const { return m_json; }
    QSpinBox* gridBox(int axis) const { return m_grid[size_t(axis)]; }
    QSpinBox* blockBox(int axis) const { return m_block[size_t(axis)]; }
    QTableWidget* arguments() const { return m_args; }
    void addArgument();  // a new row: an array of one zero word

signals:
    void edited();

private:
    void formEdited();  // the form into JSON
    void jsonEdited();  // the JSON into the form, when it parses
    void fillForm(const LaunchSpec& launch);
    void setChoices(int row, int kind, int type);  // the row's kind and type boxes, at those indexes
    QString choice(int row, Column column, const QString& otherwise) const;  // a box's text
    void check();                                                            // the verdict line
    // The form as launch JSON (core's writer), or empty with `problem` set; one argument row into `launch`.
    QString formJson(QString* problem) const;
    bool formArgument(int row, LaunchSpec& launch, QString* problem) const;

    std::array<QSpinBox*, 3> m_grid{}, m_block{};
    QSpinBox* m_sharedBytes = nullptr;  // dynamic shared memory per block
    QTableWidget* m_args;
    QPlainTextEdit* m_json;
    QLabel* m_verdict;
    bool m_syncing = false, m_valid = false;
};

}  // namespace qgpu
