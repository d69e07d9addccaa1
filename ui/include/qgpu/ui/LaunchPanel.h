// The launch panel: the grid and block shapes and the kernel's arguments as a form, and the same launch
// as JSON text (the format of resources/*/*.json). Either side edits the launch; the other follows. Every
// edit is checked against the machine at once, and the verdict line says what is wrong and where.
#pragma once

#include <QWidget>
#include <array>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"

class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
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
    // The kernel's parameters, from its last build (also one whose launch did not fit it): "From the kernel"
    // then fills the arguments.
    void setSignature(std::vector<ProgramParam> params);
    void fillFromSignature();  // the arguments the signature asks for, the shape kept, no expect

signals:
    void edited();

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void guardWheel(QWidget* w);
    QHBoxLayout* argumentButtons();  // Add, Remove and From the kernel
    void formEdited();               // the form into JSON
    void jsonEdited();               // the JSON into the form, when it parses
    void fillForm(const LaunchSpec& launch);
    void setChoices(int row, int kind, int type);  // the row's kind and type boxes, at those indexes
    QString choice(int row, Column column, const QString& otherwise) const;  // a box's text
    void check();                                                            // the verdict line
    // The form as launch JSON (core's writer), or empty with `problem` set; one argument row into `launch`.
    QString formJson(QString* problem) const;
    bool formArgument(int row, LaunchSpec& launch, QString* problem) const;

    std::array<QSpinBox*, 3> m_grid{}, m_block{};
    QSpinBox* m_sharedBytes = nullptr;  // dynamic shared memory per block
    QPushButton* m_fromSignature = nullptr;
    QScrollArea* m_scroll = nullptr;
    std::vector<ProgramParam> m_signature;
    QTableWidget* m_args;
    QPlainTextEdit* m_json;
    QLabel* m_verdict;
    bool m_syncing = false, m_valid = false;
};

// A launch's arguments for a kernel's parameters, `threads` threads in all: each pointer an array of one element
// a thread holding 0, 1, 2, ..., each integer the thread count, each float 1.0, a struct by value its bytes as
// zeros.
std::vector<KernelArg> argumentsFor(const std::vector<ProgramParam>& params, int threads);

}  // namespace qgpu
