import ArgumentParser
import Foundation
import TideCore
import TideRunner

/// One target of a `tide run` over several: what reports and folders call it, and the runner
/// that replays the scripts on it.
struct RunTarget: Sendable {
    /// Its name: letters, digits, `.`, `_`, `-` and `+`; `nil` for the one target of a run that
    /// names none.
    let label: String?
    let runner: ScriptRunner

    /// Whether `label` can name a target (it names a folder of transcripts too).
    static func isLabel(_ label: some StringProtocol) -> Bool {
        !label.isEmpty && label.first != "." && label.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-+".unicodeScalars.contains($0)
        }
    }
}

/// The options a `--target` may give, over the run's own: the model and its context, plugins
/// (added after the run's), generation parameters and the reply's format.
struct TargetOptions: ParsableArguments {
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var sampling: SamplingOptions
    @OptionGroup var formatOptions: FormatOptions

    @Option(name: .customLong("plugin"), help: "A plugin to load, after the run's.")
    var plugins: [String] = []

    /// A target `--target` writes: `LABEL: OPTIONS…`, the options split as a shell splits words.
    /// Without a label, the target is named after its model.
    static func parse(target text: String) throws -> (label: String, options: TargetOptions) {
        let usage = "--target '\(text)': "
        var label: String?
        var rest = Substring(text)
        if let colon = text.firstIndex(of: ":"), RunTarget.isLabel(text[..<colon].trimmingCharacters(in: .whitespaces)) {
            label = text[..<colon].trimmingCharacters(in: .whitespaces)
            rest = text[text.index(after: colon)...]
        }
        let words: [String]
        do {
            words = try ShellWords.split(String(rest))
        } catch {
            throw ValidationError(usage + "\(error)")
        }
        let options: TargetOptions
        do {
            options = try parse(ParameterArguments.rewrittenParameters(words))
        } catch {
            throw ValidationError(usage + message(for: error).replacingOccurrences(of: "\n", with: " "))
        }
        guard options.modelOptions.models.count <= 1 else { throw ValidationError(usage + "a target runs one model") }
        guard let named = label ?? options.modelOptions.model.map(Self.label(naming:)) else {
            throw ValidationError(usage + "name the target, LABEL: OPTIONS (plain: --model smollm2-135m-instruct), or give its --model")
        }
        return (named, options)
    }

    /// A label from a model's name or path: `model.gguf` → `model`, other characters → `-`.
    static func label(naming model: String) -> String {
        let name = model.hasSuffix(".gguf") ? URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent : model
        let label = String(name.unicodeScalars.map { RunTarget.isLabel(String($0)) ? Character($0) : "-" })
        return label.first == "." ? "-" + label.dropFirst() : label
    }

    /// `runner` (the run's) as this target runs: its model options over `model`, its plugins
    /// after the run's, its parameters over the run's.
    func runner(over runner: ScriptRunner, model: ModelOptions) async throws -> ScriptRunner {
        var runner = runner
        runner.setup = try await modelOptions.over(model).setup()
        runner.parameters = try sampling.parameters(over: runner.parameters)
        if formatOptions.isGiven { runner.parameters = try formatOptions.over(runner.parameters) }
        runner.parameterSettings += try sampling.settings
        runner.plugins += plugins
        return runner
    }
}
