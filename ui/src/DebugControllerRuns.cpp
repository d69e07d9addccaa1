// Recorded runs: a session's steps saved with the document, opened again as a backend that replays them,
// and compared with the session in hand.
#include <QFileInfo>
#include <algorithm>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/EngineThread.h"

namespace qgpu {

namespace {

constexpr const char* kRecordedPrefix = "recorded: ";

}  // namespace

bool DebugController::saveRun(const QString& path) {
    pause();
    if (!m_built->ok || !m_session->loaded() || m_session->history().empty()) {
        setStatus("There is no run to save yet: build the kernel and run it (F5) or step it first.");
        return false;
    }
    RecordedRun run;
    run.source = m_source.text.toStdString();
    run.sourceName = m_source.fileName.toStdString();
    run.cuda = m_source.cuda;
    run.debugBuild = m_source.debugBuild;
    run.launch = m_source.launch.toStdString();
    run.backend = m_session->computedBy();  // a recorded run saved again: the backend that made it
    recordMachine(run, m_built->program, m_built->launch);
    run.steps = m_session->history();
    run.tokens = m_session->tokens();
    run.tokens.writtenNow = 0;
    try {
        saveRecordedRun(run, path.toStdString());
    } catch (const std::exception& e) {
        setStatus("The run was not saved: " + QString::fromUtf8(e.what()));
        return false;
    }
    setStatus(QString("Saved the %1 backend's %2 steps to %3; File > Open Run replays them without the backend.")
                  .arg(backend())
                  .arg(run.steps.size())
                  .arg(QFileInfo(path).fileName()));
    return true;
}

bool DebugController::openRun(std::shared_ptr<const RecordedRun> run, const QString& name) {
    QString label = kRecordedPrefix + name;
    SessionFactory make = [run] { return makeRecordedSession(run); };
    auto old = std::find_if(m_backends.begin(), m_backends.end(),
                            [](const auto& b) { return b.first.startsWith(kRecordedPrefix); });
    if (old != m_backends.end())
        *old = {label, make};
    else
        m_backends.push_back({label, make});
    emit backendsChanged();
    return setBackend(label);
}

bool DebugController::compareWithRun(std::shared_ptr<const RecordedRun> run) {
    pause();
    if (!ensureBuilt()) return false;
    return compareWith([run] { return makeRecordedSession(run); },
                       QString("recorded %1 run").arg(QString::fromStdString(run->backend)));
}

}  // namespace qgpu
