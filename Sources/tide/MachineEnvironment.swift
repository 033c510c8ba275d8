import Foundation
import TideLlama

extension SimulatedMachine {
    /// The machine `TIDE_MACHINE` names in this process's environment, read once, here at the
    /// edge; this one when it is unset or empty. `tide` refuses to start when it cannot be read
    /// (``fromProcessEnvironment()`` says why), so the fallback is never taken by a command.
    static let current: SimulatedMachine = (try? fromProcessEnvironment()) ?? SimulatedMachine()

    /// The machine `TIDE_MACHINE` names in this process's environment.
    static func fromProcessEnvironment() throws(SimulatedMachineError) -> SimulatedMachine {
        try fromEnvironment(ProcessInfo.processInfo.environment)
    }
}
