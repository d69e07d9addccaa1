#include "FuzzTarget.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Launch.h"

// An assembled program is also linked and run for a bounded number of steps on one warp, with one array
// argument of each common name, so that what the assembler accepts is also safe to execute.
void fuzzOne(const std::string& input) {
    qgpu::MachineSpec spec = qgpu::MachineSpec::standard();
    qgpu::Program program = qgpu::assemble(input, "fuzz.qasm", spec);
    qgpu::LaunchSpec launch = qgpu::parseLaunchSpec(
        R"({"grid": 2, "block": 6, "args": [{"name": "a", "array": [1, 2, 3, 4]}, {"name": "out", "zeros": 8},
            {"name": "n", "scalar": 4}]})",
        "launch.json");
    qgpu::Program linked = qgpu::linkLaunch(program, launch, spec).program;
    qgpu::Interpreter interpreter(linked, launch, spec);
    for (int step = 0; step < 200 && !interpreter.done(); ++step)
        if (!interpreter.step().fault.empty()) break;
}
