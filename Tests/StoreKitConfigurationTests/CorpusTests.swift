import Foundation
import Testing

@testable import StoreKitConfiguration

/// Locations of test data, found from this file's path (the package has no resources for this target).
enum TestFiles {
    /// `Tests/StoreKitConfigurationTests`.
    static let testsDirectory = URL(filePath: #filePath).deletingLastPathComponent()
    /// The repository root.
    static let repository = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/corpus/storekit`: real `.storekit` files written by Xcode.
    static let corpus = repository.deletingLastPathComponent().appending(path: "shared/corpus/storekit")
    /// Broken sample files written for these tests.
    static let fixtures = testsDirectory.appending(path: "Fixtures")

    /// The one corpus file that does not re-serialize byte for byte: Xcode 12 (2020) wrote no final newline,
    /// and the writer always ends with one, as every later Xcode does. 55 of 56 files are byte-identical.
    static let corpusFileWithoutFinalNewline = "RevenueCat__purchases-ios__Configuration__d7066945.storekit"

    /// The names of every corpus `.storekit` file.
    static let corpusFileNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { $0.hasSuffix(".storekit") }.sorted()
    }()

    static func corpusFile(_ name: String) -> URL { corpus.appending(path: name) }

    static func loadCorpus(_ name: String) throws -> StoreKitConfigurationFile {
        try StoreKitConfigurationFile.load(contentsOf: corpusFile(name))
    }
}

@Suite("Corpus of real Xcode files")
struct CorpusTests {
    @Test("The corpus is where the tests expect it")
    func corpusIsPresent() {
        #expect(TestFiles.corpusFileNames.count == 56)
    }

    @Test("Every Xcode-written file loads", arguments: TestFiles.corpusFileNames)
    func everyCorpusFileLoads(name: String) throws {
        let configuration = try TestFiles.loadCorpus(name)
        #expect(configuration.version.major >= 1)
    }

    @Test("Every file round-trips to an equal model and the writer's output is byte-stable", arguments: TestFiles.corpusFileNames)
    func everyCorpusFileRoundTrips(name: String) throws {
        let original = try TestFiles.loadCorpus(name)
        let written = original.encodedData()
        let reread = try StoreKitConfigurationFile(data: written, sourceName: name)
        #expect(reread == original)
        #expect(reread.encodedData() == written)
    }

    @Test(
        "Xcode-written files re-serialize byte for byte",
        arguments: TestFiles.corpusFileNames.filter { $0 != TestFiles.corpusFileWithoutFinalNewline })
    func corpusFileIsByteIdentical(name: String) throws {
        let original = try Data(contentsOf: TestFiles.corpusFile(name))
        let configuration = try StoreKitConfigurationFile(data: original, sourceName: name)
        #expect(configuration.encodedData() == original)
    }

    @Test("The Xcode 12 file differs only by the final newline the writer adds")
    func xcode12FileGainsFinalNewline() throws {
        let original = try Data(contentsOf: TestFiles.corpusFile(TestFiles.corpusFileWithoutFinalNewline))
        let configuration = try StoreKitConfigurationFile(data: original, sourceName: "old.storekit")
        #expect(original.last != UInt8(ascii: "\n"))
        #expect(configuration.encodedData() == original + Data("\n".utf8))
    }
}
