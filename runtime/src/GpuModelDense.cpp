#include "qgpu/runtime/GpuModelDense.h"

#include "qgpu/runtime/Qwen35Model.h"

namespace qgpu {

namespace {

class QwenDense final : public DenseGpu {
public:
    explicit QwenDense(std::unique_ptr<Qwen35Model> model) : m_model(std::move(model)) {}
    std::unique_ptr<Sequence> start() const override { return std::make_unique<Seq>(*m_model); }
    void save(const std::string& dir, DType dtype) const override { m_model->save(dir, dtype); }

private:
    struct Seq final : Sequence {
        explicit Seq(const Qwen35Model& m) : model(m), state(m.newState()) {}
        std::vector<float> forward(const std::vector<int>& tokens, bool allPositions) override {
            return model.forward(tokens, state, allPositions);
        }
        std::vector<float> recurrentState(int layer) const override { return state.recurrentState(layer); }
        const Qwen35Model& model;
        ModelState state;
    };
    std::unique_ptr<Qwen35Model> m_model;
};

}  // namespace

std::unique_ptr<DenseGpu> makeDenseGpu(const Qwen35Config& config, const TensorSource& tensor) {
    return std::make_unique<QwenDense>(Qwen35Model::fromTensors(config, tensor));
}

}  // namespace qgpu
