import Foundation
import TideLlama

extension SimulatedMachine {
    /// The machine the tests run on: the one `TIDE_MACHINE` names in the test process's
    /// environment (`scripts/test-machines.sh` runs the suite under several), as the `tide`
    /// target reads it for the commands the tests start; this one when it is unset.
    public static let underTest: SimulatedMachine = (try? fromEnvironment(ProcessInfo.processInfo.environment)) ?? SimulatedMachine()
}
