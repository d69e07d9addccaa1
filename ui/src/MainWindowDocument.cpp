// The File menu: the document (a kernel's source and its launch spec) opened, saved, and never dropped
// with unsaved edits.
#include "qgpu/ui/MainWindow.h"

#include <Qsci/qscilexercpp.h>
#include <Qsci/qsciscintilla.h>

#include <QCloseEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QDir>

namespace qgpu {

namespace {

bool isCuda(const QString& path) { return path.endsWith(".cu"); }

QString readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

QString launchPathOf(const QString& source) {
    QFileInfo fi(source);
    return fi.path() + "/" + fi.completeBaseName() + ".json";
}

// The whole text or nothing: QSaveFile writes beside the file and renames over it only once all is written.
QString writeWhole(const QString& path, const QString& text) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit())
        return "Cannot write " + path + ": " + f.errorString() + ". Check the folder's permissions, or Save As.";
    return {};
}

// A kernel shipped with the studio (its examples and suite): it stays as installed, and Save makes a copy.
bool isShipped(const QString& path) {
    QString shipped = QFileInfo(resourceDir()).canonicalFilePath();
    QString file = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
    return !shipped.isEmpty() && !file.isEmpty() && (file == shipped || file.startsWith(shipped + "/"));
}

// Where a copy goes by default: the user's documents, not the installation.
QString userFolder() {
    QString docs = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return docs.isEmpty() ? QDir::homePath() : docs;
}

const char* const kRunFiles = "qgpu recorded runs (*.qrun)";

// File > New: a kernel of one thread per element, in the form most CUDA code starts from.
const char* const kNewKernel = R"(// A new kernel: one thread per element. Build (Ctrl+B), then Run (F5) or step (F10).
__global__ void kernel(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2;
}
)";

}  // namespace

void MainWindow::newKernel() {
    if (!maybeSave()) return;
    m_path.clear();
    m_cuda = true;
    setCudaLexer();
    {
        const QSignalBlocker quiet(m_editor);
        m_editor->setText(kNewKernel);
    }
    m_debugger->restoreBreakpoints({});
    m_launch->setText(R"({"block": 8, "args": []})");
    markClean();
    // The arguments come from the kernel's signature: a first build reads it, the second runs with them.
    build();
    m_launch->fillFromSignature();
    markClean();
    if (build()) setStatus("A new kernel, with a launch its signature asks for: edit both, then Run (F5).");
}

void MainWindow::setCudaLexer() {
    m_editor->setLexer(nullptr);
    if (!m_cuda) return;
    auto* lexer = new QsciLexerCPP(m_editor);
    lexer->setDefaultFont(m_editor->font());
    lexer->setFont(m_editor->font());
    m_editor->setLexer(lexer);
}

void MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&New", QKeySequence::New, this, [this] { newKernel(); });
    file->addAction("&Open...", QKeySequence::Open, this, [this] {
        QString path = QFileDialog::getOpenFileName(this, "Open a kernel", resourceDir() + "/kernels",
                                                    "CUDA or qasm (*.cu *.qasm)");
        if (!path.isEmpty()) openProgram(path);
    });
    m_recent = file->addMenu("Open &recent");
    fillRecentMenu();
    file->addSeparator();
    file->addAction("&Save", QKeySequence::Save, this, [this] { save(); });
    file->addAction("Save &As...", QKeySequence::SaveAs, this, [this] {
        if (QString path = askWhereToSave(); !path.isEmpty()) saveAs(path);
    });
    file->addSeparator();
    file->addAction("Open R&un...", this, [this] {
        if (QString path = askForRun("Open a recorded run"); !path.isEmpty()) openRun(path);
    });
    file->addAction("Save Ru&n...", this, [this] {
        QString path = QFileDialog::getSaveFileName(this, "Save the run", userFolder() + "/run.qrun", kRunFiles);
        if (!path.isEmpty()) m_debugger->saveRun(path);
    });
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, this, [this] { close(); });
}

bool MainWindow::openProgram(const QString& path, const QString& launchJson) {
    QString text = readText(path);
    if (text.isNull()) {
        setStatus("Cannot open " + path + ": check the path and permissions.");
        return false;
    }
    if (!maybeSave()) {
        setStatus("Kept the unsaved edits; " + QFileInfo(path).fileName() + " was not opened.");
        return false;
    }
    std::map<int, SourceBreakpoint> breakpoints = savedBreakpoints(path);
    m_path = path;
    m_cuda = isCuda(path);
    setCudaLexer();
    {
        const QSignalBlocker quiet(m_editor);  // the old document's markers are no edit of this one
        m_editor->setText(text);
    }
    m_debugger->restoreBreakpoints(std::move(breakpoints));
    addRecentFile(path);
    m_launch->setText(launchJson.isEmpty() ? readText(launchPathOf(path)) : launchJson);
    markClean();  // a launch given with the file (a chat card's) is part of what was opened
    return build();
}

QString MainWindow::askForRun(const QString& title) {
    return QFileDialog::getOpenFileName(this, title, userFolder(), kRunFiles);
}

std::shared_ptr<const RecordedRun> MainWindow::readRun(const QString& path) {
    try {
        return std::make_shared<const RecordedRun>(loadRecordedRun(path.toStdString()));
    } catch (const std::exception& e) {
        setStatus("Cannot open the run: " + QString::fromUtf8(e.what()));
        return nullptr;
    }
}

bool MainWindow::compareWithRun(const QString& path) {
    std::shared_ptr<const RecordedRun> run = readRun(path);
    return run && m_debugger->compareWithRun(run);
}

bool MainWindow::openRun(const QString& path) {
    std::shared_ptr<const RecordedRun> run = readRun(path);
    if (!run || !maybeSave()) return false;
    m_path.clear();  // the source as recorded: a document without a file, so Save asks where it goes
    m_cuda = run->cuda;
    setCudaLexer();
    {
        const QSignalBlocker quiet(m_editor);
        m_editor->setText(QString::fromStdString(run->source));
    }
    m_debugBuild->setChecked(run->debugBuild);
    m_debugger->restoreBreakpoints({});
    m_launch->setText(QString::fromStdString(run->launch));
    markClean();
    return m_debugger->openRun(run, QFileInfo(path).fileName());
}

bool MainWindow::isModified() const { return m_editor->isModified() || m_launchEdited; }

bool MainWindow::save() {
    if (m_path.isEmpty() || isShipped(m_path)) {
        QString path = askWhereToSave();
        return !path.isEmpty() && saveAs(path);
    }
    return writeDocument(m_path, m_launchEdited);
}

QString MainWindow::askWhereToSave() {
    QString name = m_path.isEmpty() ? QString(m_cuda ? "kernel.cu" : "program.qasm") : QFileInfo(m_path).fileName();
    QString folder = m_path.isEmpty() || isShipped(m_path) ? userFolder() : QFileInfo(m_path).path();
    if (isShipped(m_path))
        setStatus(name + " ships with qgpu studio and stays as installed: save your edits as a copy.");
    return QFileDialog::getSaveFileName(this, "Save the kernel as", folder + "/" + name, "CUDA or qasm (*.cu *.qasm)");
}

bool MainWindow::saveAs(const QString& path) {
    if (isShipped(path)) {
        setStatus("Not saved: " + path + " is part of qgpu studio's installation. Save the kernel elsewhere.");
        return false;
    }
    if (!writeDocument(path, true)) return false;
    if (isCuda(path) != m_cuda) {
        m_cuda = isCuda(path);
        setCudaLexer();
    }
    m_path = path;
    addRecentFile(path);
    updateTitle();
    return true;
}

bool MainWindow::writeDocument(const QString& path, bool withLaunch) {
    QString problem = writeWhole(path, m_editor->text());
    if (problem.isEmpty() && withLaunch) problem = writeWhole(launchPathOf(path), m_launch->text());
    if (!problem.isEmpty()) {
        setStatus(problem);
        return false;
    }
    markClean();
    setStatus("Saved " + path + (withLaunch ? " and its launch, " + QFileInfo(launchPathOf(path)).fileName() : ""));
    return true;
}

void MainWindow::markClean() {
    m_editor->setModified(false);
    m_launchEdited = false;
    updateTitle();
}

void MainWindow::updateTitle() {
    QString name = m_path.isEmpty() ? QString(m_cuda ? "untitled.cu" : "untitled") : QFileInfo(m_path).fileName();
    if (isShipped(m_path)) name += " (shipped: Save makes a copy)";
    setWindowTitle("qgpu studio - " + name + "[*]");
    setWindowModified(isModified());
}

bool MainWindow::maybeSave() {
    if (!isModified()) return true;
    QString name = m_path.isEmpty() ? QString("The kernel") : QFileInfo(m_path).fileName();
    auto answer =
        QMessageBox::warning(this, "Unsaved edits", name + " has unsaved edits (its source or its launch). Save them?",
                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!maybeSave()) return e->ignore();
    m_debugger->pause();  // the window goes: the run in flight ends here, not in the middle of teardown
    saveLayout();
    e->accept();
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings("qgpu", "qgpu-studio");
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8) recent.removeLast();
    settings.setValue("recentFiles", recent);
    fillRecentMenu();
}

void MainWindow::fillRecentMenu() {
    m_recent->clear();
    for (const QString& file : QSettings("qgpu", "qgpu-studio").value("recentFiles").toStringList())
        m_recent->addAction(QFileInfo(file).fileName(), this, [this, file] { openProgram(file); })->setToolTip(file);
}

}  // namespace qgpu
