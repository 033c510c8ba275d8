import Foundation
import TideLlama
import TideModels

extension SimulatedMachine {
    /// The machine the tests run on: the one `TIDE_MACHINE` names in the test process's
    /// environment (`scripts/test-machines.sh` runs the suite under several), as the `tide`
    /// target reads it for the commands the tests start; this one when it is unset.
    public static let underTest: SimulatedMachine = (try? fromEnvironment(ProcessInfo.processInfo.environment)) ?? SimulatedMachine()

    /// Whether `model`, in a context with every core and the default attention kernel, scores a
    /// batch's tokens bit for bit as alone on the machine under test: the batch probe's finding,
    /// and no batch drift simulated. What a test of drafting or teacher forcing may expect of
    /// replies rests on it (docs/speed.md, "What this keeps exact"): where it holds, a drafted or
    /// forced reply is the plain one token for token; where it does not (a GPU), recordings are
    /// confirmed within the tolerance and `lookup` does not draft.
    public static func batchesAreExact(for model: LlamaModel) -> Bool {
        underTest.batchDrift == nil && model.scoresBatchesExactly(threads: LlamaContextOptions.coreCount)
    }

    /// ``batchesAreExact(for:)`` for the bundled model (installed by scripts/setup.sh), for tests
    /// that reach it through a command or a model cache.
    public static let bundledModelBatchesAreExact: Bool = {
        guard let entry = ModelRegistry.entry(named: ModelRegistry.defaultModelID),
              let model = try? LlamaModel.load(path: ModelStore.standard.path(for: entry).path) else {
            fatalError("the bundled model must be installed for these tests (run `make test`)")
        }
        return batchesAreExact(for: model)
    }()
}
