// The chat panel: a mode switch (normal: Qwen writes array expressions; advanced: Qwen writes
// CUDA kernels), the conversation with every tool call shown as a card that opens its launch in the
// debugger, and an input line. The engine behind it lives in the app, because the UI library links no
// Torch. Engine work runs on an engine thread of the panel's own (EngineThread.h); the panel stays live and shows
// "working" meanwhile.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTextBrowser;

namespace qgpu {

class EngineThread;

// One tool call as the panel shows it.
struct ChatCard {
    std::string title;     // e.g. "gpu_eval: [1, 2, 3] @ [4, 5, 6]"
    std::string response;  // what went back to Qwen (the value, the arrays, or the error)
    bool ok = false;
    std::string details;     // its launches: kernel, shape, tokens, time
    std::string kernelPath;  // the kernel to open in the debugger (empty: none ran)
    std::string launchJson;  // and its launch
};

class ChatEngine {
public:
    virtual ~ChatEngine() = default;
    // Work before the first message (loading a host checkpoint): the panel runs load() on its engine
    // thread, with a progress bar fed by `progress(done, total)`, before it asks for hostStatus().
    virtual bool needsLoading() const { return false; }
    virtual void load(const std::function<void(int done, int total)>& progress) { (void)progress; }
    // Empty when a host checkpoint is loaded; else what the panel tells the user (how to load one).
    virtual std::string hostStatus() const = 0;
    // Figures for the status line after each message (weights, memory, tokens/s); empty for none.
    virtual std::string figures() const { return {}; }
    struct Callbacks {
        std::function<void(const std::string&)> text;  // a piece of the answer, streamed
        std::function<void(const ChatCard&)> card;
    };
    // Answers a message (with a host: Qwen, using the GPU as its tool; without: the message is an
    // expression, evaluated on the GPU inside the model). Runs on the panel's engine thread; the callbacks
    // are called there. Returns an error to show, or empty.
    virtual std::string send(const std::string& message, bool advanced, const Callbacks& callbacks) = 0;
};

class ChatPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChatPanel(std::unique_ptr<ChatEngine> engine, QWidget* parent = nullptr);
    ~ChatPanel() override;  // waits for a message in progress

    void send(const QString& message);    // as if typed; ignored while busy
    bool busy() const { return m_busy; }  // answering, or loading the host
    QString stateText() const;            // the status line under the input
    QString transcript() const;           // the conversation as plain text
    const std::vector<ChatCard>& cards() const { return m_cards; }
    void openCard(int index);  // emits openLaunch for the card's kernel

signals:
    void openLaunch(const QString& kernelPath, const QString& launchJson);

private:
    void append(const QString& html);
    void startLoading();
    void showHostState();
    void finish(const QString& error);

    std::unique_ptr<ChatEngine> m_engine;
    QComboBox* m_mode;
    QTextBrowser* m_log;
    QLineEdit* m_input;
    QPushButton* m_send;
    QLabel* m_state;
    QProgressBar* m_loading;
    std::vector<ChatCard> m_cards;
    std::unique_ptr<EngineThread> m_thread;  // after m_engine: it ends first, with the engine still there
    bool m_busy = false;
    QString m_answer;  // the reply being streamed
};

}  // namespace qgpu
