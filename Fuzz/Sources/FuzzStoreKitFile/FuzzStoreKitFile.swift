import Foundation
import FuzzSupport
import StoreKitConfiguration

// Fuzzes the `.storekit` reader: parsing and validating a file, and for a file that loads, writing it back in
// Xcode's serialization and reading that again (which must load: the writer's output is a valid file).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzInput(bytes, size)
    guard let file = try? StoreKitConfigurationFile(data: data, sourceName: "fuzz.storekit") else { return 0 }
    _ = file.allProducts
    _ = file.allSubscriptions
    let written = file.encodedData()
    do {
        _ = try StoreKitConfigurationFile(data: written, sourceName: "rewritten.storekit")
    } catch {
        fatalError("A file that loaded does not load again once written: \(error)")
    }
    return 0
}

/// The `main` SwiftPM gives this executable calls this: libFuzzer takes over with ``fuzz(_:_:)``.
@_cdecl("FuzzStoreKitFile_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
