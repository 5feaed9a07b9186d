#!/usr/bin/env node
// The `retrace` CLI of the umbrella package: the one of @retrace-cua/experiments.
import "@retrace-cua/experiments/bin/retrace.mjs";
