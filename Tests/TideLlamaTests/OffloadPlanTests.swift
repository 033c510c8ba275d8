import Testing
import TideLlama

/// How many layers go to the GPU, decided without one: what `--gpu-layers` asks for, the
/// fitting to the GPU's free memory, and the notes the user gets.
@Suite struct OffloadPlanTests {
    let gpu = GPUDevice(name: "NVIDIA H100 80GB HBM3", freeBytes: 80 << 30, totalBytes: 80 << 30)
    let small = GPUDevice(name: "NVIDIA T400", freeBytes: 1 << 30, totalBytes: 2 << 30)

    @Test func everyLayerGoesToAGPUThatHoldsThem() {
        let plan = OffloadPlan.make(requested: nil, gpu: gpu, layers: 31, modelBytes: 145 << 20, cacheBytes: 90 << 20)
        #expect(plan == OffloadPlan(gpuLayers: 31))
    }

    @Test func aModelLargerThanTheFreeMemoryGetsTheLayersThatFit() throws {
        // 2.3 GiB of weights and 0.4 GiB of cache over 33 layers; 1 GiB free, of which 512 MiB is kept.
        let plan = OffloadPlan.make(requested: nil, gpu: small, layers: 33, modelBytes: 2_470_000_000, cacheBytes: 430_000_000)
        #expect(plan.gpuLayers == 6, "\(plan)")
        let note = try #require(plan.note)
        #expect(note == "the model and its cache (2.7 GiB) need more than the 1.0 GiB free on NVIDIA T400: 6 of 33 layers go to "
            + "the GPU, the rest run on the CPU (--gpu-layers sets the count)")
        let none = OffloadPlan.make(requested: nil, gpu: GPUDevice(name: "tiny", freeBytes: 256 << 20, totalBytes: 1 << 30),
                                    layers: 33, modelBytes: 2_470_000_000, cacheBytes: 0)
        #expect(none.gpuLayers == 0)
    }

    @Test func aCountGivenIsTakenAsItIs() {
        for requested in [-1, 0, 5, 100] {
            let plan = OffloadPlan.make(requested: requested, gpu: small, layers: 33, modelBytes: 2_470_000_000, cacheBytes: 0)
            #expect(plan == OffloadPlan(gpuLayers: requested), "--gpu-layers \(requested) is the user's choice")
        }
    }

    @Test func withoutAGPUTheModelRunsOnTheCPUAndARequestSaysSo() throws {
        #expect(OffloadPlan.make(requested: nil, gpu: nil, layers: 31, modelBytes: 1, cacheBytes: 1) == OffloadPlan(gpuLayers: 0))
        #expect(OffloadPlan.make(requested: 0, gpu: nil, layers: 31, modelBytes: 1, cacheBytes: 1) == OffloadPlan(gpuLayers: 0))
        let asked = OffloadPlan.make(requested: -1, gpu: nil, layers: 31, modelBytes: 1, cacheBytes: 1)
        #expect(asked.gpuLayers == 0)
        #expect(try #require(asked.note).hasPrefix("--gpu-layers -1 has no effect: this llama.cpp has no GPU offload"))
        #expect(asked.note?.contains("TIDE_GPU=cuda") == true)
    }

    @Test func placementsSayWhereTheModelRuns() {
        #expect(ModelPlacement(gpu: nil, gpuLayers: 0, layers: 31).description == "CPU")
        #expect(ModelPlacement(gpu: "NVIDIA H100 80GB HBM3", gpuLayers: 31, layers: 31).description
            == "GPU (NVIDIA H100 80GB HBM3, 31 of 31 layers)")
        #expect(ModelPlacement(gpu: "NVIDIA T400", gpuLayers: 6, layers: 33).description == "CPU and GPU (NVIDIA T400, 6 of 33 layers)")
    }
}
