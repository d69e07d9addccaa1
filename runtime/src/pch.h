// Precompiled header of the runtime library: the Torch headers every runtime source needs.
#pragma once
#include <ATen/ATen.h>
#include <torch/types.h>
