#include "qgpu/ui/ChatPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "qgpu/ui/EngineThread.h"

namespace qgpu {

namespace {

QString escaped(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped().replace("\n", "<br>"); }

}  // namespace

ChatPanel::ChatPanel(std::unique_ptr<ChatEngine> engine, QWidget* parent)
    : QWidget(parent), m_engine(std::move(engine)), m_thread(std::make_unique<EngineThread>()) {
    m_mode = new QComboBox;
    m_mode->setObjectName("chatMode");
    m_mode->addItem("Normal: Qwen writes expressions");
    m_mode->addItem("Advanced: Qwen writes CUDA kernels");
    m_log = new QTextBrowser;
    m_log->setObjectName("chatLog");
    m_log->setOpenLinks(false);
    connect(m_log, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == "card") openCard(url.path().toInt());
    });
    m_input = new QLineEdit;
    m_input->setObjectName("chatInput");
    m_send = new QPushButton("Send");
    m_state = new QLabel;
    m_state->setObjectName("chatState");
    m_state->setWordWrap(true);
    m_loading = new QProgressBar;
    m_loading->setObjectName("chatLoading");
    m_loading->hide();
    auto* row = new QHBoxLayout;
    row->addWidget(m_input, 1);
    row->addWidget(m_send);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_mode);
    layout->addWidget(m_log, 1);
    layout->addLayout(row);
    layout->addWidget(m_loading);
    layout->addWidget(m_state);
    auto submit = [this] {
        QString text = m_input->text().trimmed();
        if (text.isEmpty() || m_busy) return;
        m_input->clear();
        send(text);
    };
    connect(m_send, &QPushButton::clicked, this, submit);
    connect(m_input, &QLineEdit::returnPressed, this, submit);
    if (m_engine->needsLoading())
        startLoading();
    else
        showHostState();
}

// Loads on the engine thread; the panel stays live with a progress bar and takes no message meanwhile.
void ChatPanel::startLoading() {
    m_busy = true;
    m_send->setEnabled(false);
    m_input->setEnabled(false);
    m_loading->setRange(0, 0);  // busy until the first report
    m_loading->show();
    m_state->setText("loading the host checkpoint...");
    auto progress = [this](int done, int total) {
        QMetaObject::invokeMethod(
            this,
            [this, done, total] {
                m_loading->setRange(0, total);
                m_loading->setValue(done);
                m_state->setText(QString("loading the host checkpoint: %1 of %2 tensors").arg(done).arg(total));
            },
            Qt::QueuedConnection);
    };
    // A failure to load is the engine's to report, through hostStatus().
    m_thread->start({[this, progress] {
                         m_engine->load(progress);
                         return true;
                     },
                     [this](bool, const QString&) {
                         m_loading->hide();
                         m_busy = false;
                         m_send->setEnabled(true);
                         m_input->setEnabled(true);
                         showHostState();
                     }});
}

void ChatPanel::showHostState() {
    std::string host = m_engine->hostStatus();
    if (host.empty()) {
        m_input->setPlaceholderText("Ask Qwen, e.g. what is [1, 2, 3] dot [4, 5, 6]?");
        std::string figures = m_engine->figures();
        m_state->setText("Qwen uses the GPU inside the model as its tool." +
                         (figures.empty() ? QString() : " " + QString::fromStdString(figures)));
    } else {
        m_mode->setEnabled(false);
        m_input->setPlaceholderText("Type an expression, e.g. [1, 2, 3] @ [4, 5, 6]");
        m_state->setText("No host checkpoint: expressions run on the GPU inside the model.");
        append("<i>" + escaped(host) + "</i>");
    }
}

ChatPanel::~ChatPanel() = default;

void ChatPanel::append(const QString& html) {
    m_log->append(html);
    m_log->ensureCursorVisible();
}

void ChatPanel::send(const QString& message) {
    if (m_busy) return;
    m_busy = true;
    m_send->setEnabled(false);
    m_state->setText("working: the GPU inside the model runs each launch...");
    append("<p><b>You:</b> " + message.toHtmlEscaped() + "</p>");
    m_answer.clear();
    bool advanced = m_mode->currentIndex() == 1;
    // The engine reports through queued calls: every widget is touched on the GUI thread only.
    ChatEngine::Callbacks callbacks;
    callbacks.text = [this](const std::string& piece) {
        QMetaObject::invokeMethod(
            this,
            [this, p = QString::fromStdString(piece)] {
                m_answer += p;
                m_state->setText("answering: " + m_answer.right(80).simplified());
            },
            Qt::QueuedConnection);
    };
    callbacks.card = [this](const ChatCard& card) {
        QMetaObject::invokeMethod(
            this,
            [this, card] {
                m_cards.push_back(card);
                int index = int(m_cards.size()) - 1;
                QString link = card.kernelPath.empty()
                                   ? QString()
                                   : QString(" <a href=\"card:%1\">open in the debugger</a>").arg(index);
                // The response keeps its spaces: an error's caret stands under the column it names.
                append(
                    QString("<table border=1 cellpadding=4 width=100%><tr><td><b>%1</b> %2%3"
                            "<pre style=\"margin:0; white-space:pre-wrap\">%4</pre><small>%5</small></td></tr></table>")
                        .arg(escaped(card.title), card.ok ? "" : "<font color=#b00>(failed)</font>", link,
                             QString::fromStdString(card.response).toHtmlEscaped(), escaped(card.details)));
            },
            Qt::QueuedConnection);
    };
    std::string text = message.toStdString();
    auto error = std::make_shared<std::string>();
    m_thread->start({[this, text, advanced, callbacks, error] {
                         *error = m_engine->send(text, advanced, callbacks);
                         return true;
                     },
                     [this, error](bool, const QString& failure) {
                         finish(failure.isEmpty() ? QString::fromStdString(*error) : failure);
                     }});
}

void ChatPanel::finish(const QString& error) {
    QString who = m_engine->hostStatus().empty() ? "Qwen" : "GPU";
    if (!m_answer.isEmpty())
        append("<p><b>" + who + ":</b> " + m_answer.toHtmlEscaped().replace("\n", "<br>") + "</p>");
    if (!error.isEmpty()) append("<p><font color=#b00>" + error.toHtmlEscaped().replace("\n", "<br>") + "</font></p>");
    m_busy = false;
    m_send->setEnabled(true);
    std::string figures = m_engine->figures();
    m_state->setText((error.isEmpty() ? "done." : "failed.") +
                     (figures.empty() ? QString() : " " + QString::fromStdString(figures)));
}

QString ChatPanel::stateText() const { return m_state->text(); }

QString ChatPanel::transcript() const { return m_log->toPlainText(); }

void ChatPanel::openCard(int index) {
    if (index < 0 || index >= int(m_cards.size()) || m_cards[size_t(index)].kernelPath.empty()) return;
    const ChatCard& c = m_cards[size_t(index)];
    emit openLaunch(QString::fromStdString(c.kernelPath), QString::fromStdString(c.launchJson));
}

}  // namespace qgpu
