/// A run over several targets as a matrix: a row per case (a script, or a script's data row), a
/// column per target, each cell the checks that held there; and each target's totals.
public struct RunMatrix: Sendable {
    /// The targets, in the run's order.
    public var targets: [String]
    /// One row per case, in the run's order.
    public var rows: [Row]

    /// A case on every target.
    public struct Row: Sendable {
        /// The script file.
        public var file: String
        /// Its data row, when it is fed by data.
        public var row: String?
        /// Its outcome on each target, in ``RunMatrix/targets``' order (`nil` where it did not run).
        public var cells: [Cell?]

        /// `file[row]`.
        public var label: String { ScriptResult.label(file: file, row: row, target: nil) }
    }

    /// A case on one target.
    public struct Cell: Sendable, Hashable {
        public var passed: Int
        public var failed: Int
        /// Why it could not run to its end, if it could not.
        public var failure: String?
        public var seconds: Double
        /// How many times its runs were run again after a server's failure.
        public var retries = 0

        /// Whether every check held and it ran to its end.
        public var isPass: Bool { failed == 0 && failure == nil }
    }

    /// A target's column added up.
    public struct Totals: Sendable, Hashable {
        public var passed = 0
        public var failed = 0
        /// Cases that could not run to their end.
        public var errors = 0
        /// Cases whose every check held.
        public var casesPassed = 0
        public var cases = 0
        /// The cases' times added up (they overlap under `--parallel`).
        public var seconds = 0.0
        /// The cases run again after a server's failure, counted.
        public var retries = 0
    }

    /// The matrix of `outcomes` (each a case on a target, as ``ScriptOutcome/target`` says) over
    /// `targets`.
    public init(outcomes: [ScriptOutcome], targets: [String]) {
        self.targets = targets
        rows = []
        var index: [String: Int] = [:]
        for outcome in outcomes {
            let key = ScriptResult.label(file: outcome.file, row: outcome.row, target: nil)
            let position = index[key] ?? rows.count
            if position == rows.count {
                index[key] = position
                rows.append(Row(file: outcome.file, row: outcome.row, cells: Array(repeating: nil, count: targets.count)))
            }
            guard let column = targets.firstIndex(where: { $0 == outcome.target }) else { continue }
            rows[position].cells[column] = Cell(passed: outcome.passed, failed: outcome.failed, failure: outcome.failure,
                                                seconds: outcome.seconds, retries: outcome.retries)
        }
    }

    /// Each target's totals, in ``targets``' order.
    public var totals: [Totals] {
        targets.indices.map { column in
            var totals = Totals()
            for cell in rows.compactMap({ $0.cells[column] }) {
                totals.passed += cell.passed
                totals.failed += cell.failed
                totals.errors += cell.failure == nil ? 0 : 1
                totals.casesPassed += cell.isPass ? 1 : 0
                totals.cases += 1
                totals.seconds += cell.seconds
                totals.retries += cell.retries
            }
            return totals
        }
    }

    /// Two targets set against each other on the cases both ran: how many passed on one only,
    /// and McNemar's exact p-value of that split (``PassStatistics/mcNemarExactP(onlyFirst:onlySecond:)``).
    public struct Comparison: Sendable, Hashable {
        public var first: String
        public var second: String
        /// Cases both targets ran.
        public var shared: Int
        /// Cases that passed on the first target only, and on the second only.
        public var onlyFirst: Int
        public var onlySecond: Int
        /// How likely a split this uneven is from targets that pass alike: small (below 0.05, say)
        /// is evidence of a difference; large is none.
        public var pValue: Double { PassStatistics.mcNemarExactP(onlyFirst: onlyFirst, onlySecond: onlySecond) }
    }

    /// Every pair of targets, in ``targets``' order, compared on the cases both ran.
    public var comparisons: [Comparison] {
        targets.indices.flatMap { first in
            targets.indices.dropFirst(first + 1).map { second in
                var comparison = Comparison(first: targets[first], second: targets[second], shared: 0, onlyFirst: 0, onlySecond: 0)
                for row in rows {
                    guard let a = row.cells[first], let b = row.cells[second] else { continue }
                    comparison.shared += 1
                    if a.isPass && !b.isPass { comparison.onlyFirst += 1 }
                    if b.isPass && !a.isPass { comparison.onlySecond += 1 }
                }
                return comparison
            }
        }
    }

    /// The rows whose targets do not all pass.
    public var rowsWithFailures: [Row] {
        rows.filter { !$0.cells.allSatisfy { $0?.isPass ?? true } }
    }
}
