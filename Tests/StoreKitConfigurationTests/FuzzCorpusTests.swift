import Foundation
import Testing

@testable import StoreKitConfiguration

/// What the libFuzzer target `FuzzStoreKitFile` (in `Fuzz/`) does with an input — read it, and write back a file
/// that loads and read that again — run over its seeds (the corpus and the fixtures) and simple mutations of them,
/// so every test run exercises those inputs without libFuzzer.
@Suite("Fuzz corpus: .storekit files")
struct StoreKitFileFuzzCorpusTests {
    /// The input, its prefixes and copies with one byte changed at evenly spaced places.
    static func mutations(of data: Data) -> [Data] {
        let bytes = Array(data)
        var variants = [data, Data(), Data(bytes.prefix(bytes.count / 2)), Data(bytes.dropLast(2))]
        for step in 1...12 where !bytes.isEmpty {
            var changed = bytes
            let index = bytes.count * step / 13
            changed[index] = changed[index] &+ 0x21
            variants.append(Data(changed))
        }
        return variants
    }

    /// What `FuzzStoreKitFile` does with an input: a file that loads writes back to one that loads.
    static func exercise(_ data: Data) throws {
        guard let file = try? StoreKitConfigurationFile(data: data, sourceName: "fuzz.storekit") else { return }
        _ = file.allProducts
        _ = file.allSubscriptions
        _ = try StoreKitConfigurationFile(data: file.encodedData(), sourceName: "rewritten.storekit")
    }

    @Test("Every corpus and fixture file, and mutations of it, is read or refused, and what loads writes back loadable")
    func seedsAndMutations() throws {
        let fixtures = (try FileManager.default.contentsOfDirectory(at: TestFiles.fixtures, includingPropertiesForKeys: nil))
            .filter { $0.pathExtension == "storekit" }
        let files = TestFiles.corpusFileNames.map(TestFiles.corpusFile) + fixtures
        #expect(files.count > 56)
        for url in files {
            for input in Self.mutations(of: try Data(contentsOf: url)) {
                try Self.exercise(input)
            }
        }
    }
}
