import Foundation
import Testing

/// What `scripts/setup.sh` builds llama.cpp for (`--gpu-choice`: the decision alone, nothing
/// built), with stand-ins for `nvidia-smi` and `nvcc` first on PATH: CUDA where the toolkit and an
/// NVIDIA GPU are both present, the CPU otherwise, and TIDE_GPU's word over both.
@Suite struct SetupScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/setup.sh")
    /// Whether this machine has a CUDA toolkit of its own, which no stand-in can hide.
    static let realToolkit = ProcessInfo.processInfo.environment["PATH", default: ""].split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/nvcc") }
        || FileManager.default.isExecutableFile(atPath: "/usr/local/cuda/bin/nvcc")

    /// A folder of stand-ins: `nvidia-smi` listing `gpu` (or failing, as it does without a
    /// driver), and `nvcc` when `toolkit`.
    func tools(gpu: String?, toolkit: Bool) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-gpu-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let smi = gpu.map { "#!/bin/sh\necho 'GPU 0: \($0) (UUID: GPU-0f0f0f0f)'\n" }
            ?? "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n"
        var files = ["nvidia-smi": smi]
        if toolkit { files["nvcc"] = "#!/bin/sh\necho 'Cuda compilation tools, release 13.0'\n" }
        for (name, text) in files {
            let file = folder.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        return folder
    }

    func choice(_ tools: URL, gpu: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.script.path, "--gpu-choice"]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = tools.path + ":" + environment["PATH", default: "/usr/bin:/bin"]
        environment["TIDE_GPU"] = gpu
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test func aGPUAndTheToolkitGetACUDABuild() throws {
        let tools = try tools(gpu: "NVIDIA H100 80GB HBM3", toolkit: true)
        let result = try choice(tools)
        #expect(result.status == 0)
        #expect(result.output == "cuda: NVIDIA H100 80GB HBM3 and the CUDA toolkit (\(tools.path)/nvcc) are here\n")
        #expect(try choice(tools, gpu: "cpu").output == "cpu: TIDE_GPU=cpu\n", "TIDE_GPU=cpu wins")
    }

    @Test func withoutAGPUNothingChanges() throws {
        let result = try choice(try tools(gpu: nil, toolkit: true))
        #expect(result.status == 0)
        #expect(result.output == "cpu: no NVIDIA GPU here (nvidia-smi lists none)\n")
    }

    @Test(.enabled(if: !realToolkit, "this machine has a CUDA toolkit, which the stand-ins cannot hide"))
    func aGPUWithoutTheToolkitSaysWhatToInstall() throws {
        let tools = try tools(gpu: "NVIDIA L4", toolkit: false)
        #expect(try choice(tools).output
            == "cpu: NVIDIA L4 is here but no CUDA toolkit (nvcc): install it and run the set-up again to use the GPU\n")
        let forced = try choice(tools, gpu: "cuda")
        #expect(forced.status == 2)
        #expect(forced.output.contains("TIDE_GPU=cuda, but there is no CUDA toolkit here"), "\(forced.output)")
        #expect(forced.output.contains("build for the CPU with TIDE_GPU=cpu"))
    }

    @Test func anUnknownChoiceIsRefused() throws {
        let result = try choice(try tools(gpu: nil, toolkit: false), gpu: "metal")
        #expect(result.status == 2)
        #expect(result.output.contains("TIDE_GPU is auto, cuda or cpu, not metal"))
    }
}
