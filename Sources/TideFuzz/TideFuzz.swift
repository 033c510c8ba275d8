import Foundation

/// `TideFuzz TARGET INPUT…`: the fuzz targets (``FuzzTarget``). Built by `scripts/fuzz.sh` with
/// `-sanitize=fuzzer` and `-DFUZZING`, it is libFuzzer's coverage-guided driver, and the
/// arguments after the target are libFuzzer's (corpus folders, `-max_total_time=…`). Built
/// plainly (it is part of `swift build`), it runs each input file, or each file of an input
/// folder, once through the target: how a finding is reproduced in a debugger.
@main
struct TideFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: TideFuzz TARGET INPUT…, where TARGET is one of \(names)\n".utf8))
            exit(2)
        }
        #if FUZZING
        selected = target
        let argv = [arguments[0]] + arguments.dropFirst(2)
        var pointers: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var count = CInt(argv.count)
        exit(pointers.withUnsafeMutableBufferPointer { buffer in
            var start = buffer.baseAddress!
            return LLVMFuzzerRunDriver(&count, &start) { data, size in
                selected?.run(Array(UnsafeBufferPointer(start: data, count: size)))
                return 0
            }
        })
        #else
        var inputs = 0
        for path in arguments.dropFirst(2) {
            for file in files(at: path) {
                guard let bytes = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(1)
                }
                target.run(Array(bytes))
                inputs += 1
            }
        }
        print("\(target.rawValue): \(inputs) inputs ran")
        #endif
    }

    /// `path` itself, or the files in it and its subfolders when it is a folder.
    static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [path] }
        let names = (FileManager.default.subpaths(atPath: path) ?? []).sorted()
        return names.map { path + "/" + $0 }.filter { name in
            FileManager.default.fileExists(atPath: name, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }
}

#if FUZZING
/// The target libFuzzer's callback runs (a C function pointer captures nothing).
nonisolated(unsafe) private var selected: FuzzTarget?

/// libFuzzer's entry point for a program with its own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
