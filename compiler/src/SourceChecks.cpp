#include "SourceChecks.h"

// GCC 12 warns of a null `this` inside Clang's RecursiveASTVisitor (CXXRecordDecl::bases() inlined into its
// traversal): a false positive in Clang's headers, which this file instantiates.
#pragma GCC diagnostic ignored "-Wnonnull"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <llvm/Demangle/Demangle.h>

#include <string>

namespace qgpu {
namespace {

class CheckVisitor : public clang::RecursiveASTVisitor<CheckVisitor> {
public:
    CheckVisitor(clang::ASTContext& context, clang::DiagnosticsEngine& diags, int maxUnroll)
        : m_context(context), m_diags(diags), m_max(maxUnroll) {}

    bool shouldVisitTemplateInstantiations() const { return true; }

    bool VisitAttributedStmt(clang::AttributedStmt* statement) {
        for (const clang::Attr* attr : statement->getAttrs()) {
            const auto* hint = llvm::dyn_cast<clang::LoopHintAttr>(attr);
            if (!hint || (hint->getOption() != clang::LoopHintAttr::UnrollCount &&
                          hint->getOption() != clang::LoopHintAttr::UnrollAndJamCount))
                continue;
            const clang::Expr* value = hint->getValue();
            if (!value || value->isValueDependent()) continue;
            std::optional<llvm::APSInt> count = value->getIntegerConstantExpr(m_context);
            if (count && count->getSExtValue() > m_max)
                report(hint->getLocation(),
                       "#pragma unroll " + std::to_string(count->getSExtValue()) +
                           " asks for more copies of the loop than the limit of " + std::to_string(m_max) +
                           " (each copy is code in the program ROM); lower the count, or raise "
                           "the limit with --max-unroll N (QGPU_MAX_UNROLL in the studio and chat)");
        }
        return true;
    }

    bool VisitIndirectGotoStmt(clang::IndirectGotoStmt* statement) {
        report(statement->getGotoLoc(),
               "a computed goto (goto *address) cannot run on this machine; branch with a "
               "switch over the targets instead");
        return true;
    }

    bool VisitFunctionDecl(clang::FunctionDecl* function) {
        if (const auto* alias = function->getAttr<clang::AliasAttr>())
            report(alias->getLocation(),
                   "a symbol alias (__attribute__((alias))) cannot be linked on this machine, "
                   "which runs one kernel without symbols; call '" +
                       llvm::demangle(alias->getAliasee().str()) + "' by its own name");
        return true;
    }

private:
    void report(clang::SourceLocation where, const std::string& message) {
        unsigned id = m_diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0");
        m_diags.Report(where, id) << message;
    }

    clang::ASTContext& m_context;
    clang::DiagnosticsEngine& m_diags;
    int m_max;
};

class SourceCheckConsumer : public clang::ASTConsumer {
public:
    SourceCheckConsumer(clang::DiagnosticsEngine& diags, int maxUnroll) : m_diags(diags), m_max(maxUnroll) {}

    void HandleTranslationUnit(clang::ASTContext& context) override {
        CheckVisitor(context, m_diags, m_max).TraverseDecl(context.getTranslationUnitDecl());
    }

private:
    clang::DiagnosticsEngine& m_diags;
    int m_max;
};

}  // namespace

std::unique_ptr<clang::ASTConsumer> makeSourceChecks(clang::DiagnosticsEngine& diags, int maxUnroll) {
    return std::make_unique<SourceCheckConsumer>(diags, maxUnroll);
}

}  // namespace qgpu
