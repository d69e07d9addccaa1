#include "FuzzTarget.h"
#include "qgpu/core/Launch.h"

void fuzzOne(const std::string& input) {
    qgpu::LaunchSpec launch = qgpu::parseLaunchSpec(input, "fuzz.json");
    qgpu::validateLaunch(launch, qgpu::MachineSpec::standard());
    qgpu::parseLaunchSpec(qgpu::launchSpecToJson(launch), "again.json");
}
