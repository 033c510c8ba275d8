import Foundation
import TideModels

/// The model families Tide claims, each proven on a fixture model that scripts/setup.sh makes
/// (scripts/fixture-models.py: random weights, the family's vocabulary and chat template) or, for
/// SmolLM2, on the bundled model itself.
public struct ModelFamily: Sendable, CustomStringConvertible {
    /// The fixture's name (`phi-3.5`), or the bundled model's registry name.
    public let name: String
    /// The text of the token that ends the family's assistant turns.
    public let endOfTurn: String
    /// The GGUF file.
    public let path: String

    public var description: String { name }

    /// Every family, the bundled model's first.
    public static let all: [ModelFamily] = {
        let bundled = ModelStore.standard.path(for: ModelRegistry.entry(named: ModelRegistry.defaultModelID)!).path
        let fixtures = ModelStore.standard.directory.deletingLastPathComponent().appendingPathComponent("fixtures")
        func fixture(_ name: String, _ endOfTurn: String) -> ModelFamily {
            ModelFamily(name: name, endOfTurn: endOfTurn, path: fixtures.appendingPathComponent("\(name).gguf").path)
        }
        return [ModelFamily(name: ModelRegistry.defaultModelID, endOfTurn: "<|im_end|>", path: bundled),
                fixture("phi-3.5", "<|end|>"), fixture("phi-4-mini", "<|end|>"), fixture("llama-3.2", "<|eot_id|>"),
                fixture("qwen-2.5", "<|im_end|>"), fixture("qwen-3", "<|im_end|>"), fixture("gemma-3", "<end_of_turn>"),
                fixture("deepseek-r1-qwen", "<｜end▁of▁sentence｜>")]
    }()

    /// The family `name`, its file checked to be there.
    public static func named(_ name: String) throws -> ModelFamily {
        guard let family = all.first(where: { $0.name == name }) else {
            throw ServerProcess.Failure(description: "no model family \(name) among the fixtures")
        }
        try family.checkInstalled()
        return family
    }

    /// Fails with what to run when the family's file is missing.
    public func checkInstalled() throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServerProcess.Failure(description: "no fixture model \(path): run scripts/setup.sh")
        }
    }
}
