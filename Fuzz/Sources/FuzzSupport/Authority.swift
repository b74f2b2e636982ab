public import AppStoreFormats
import Foundation

/// The certificate authority fuzz targets sign and verify with: the one in the folder `FUZZ_AUTHORITY` names
/// (made there on first use, so the seed-writing run and the fuzzing run share it), or a new one.
public let fuzzAuthority: CertificateAuthority = {
    do {
        if let folder = ProcessInfo.processInfo.environment["FUZZ_AUTHORITY"] {
            return try CertificateAuthority.loadOrCreate(in: URL(fileURLWithPath: folder, isDirectory: true))
        }
        return try CertificateAuthority(issuedAt: CertificateAuthority.defaultValidity.lowerBound)
    } catch {
        fatalError("The fuzzing certificate authority could not be made: \(error)")
    }
}()

/// DER root certificates to trust besides ``fuzzAuthority``'s: every `*.cer` file in the folder `FUZZ_TRUSTED_ROOTS`
/// names (Apple's roots and Xcode's StoreKit certificate from the shared vectors), so Apple-signed seeds get past
/// chain validation.
public let extraTrustedRoots: [Data] = {
    guard let folder = ProcessInfo.processInfo.environment["FUZZ_TRUSTED_ROOTS"] else { return [] }
    let directory = URL(fileURLWithPath: folder, isDirectory: true)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { $0.hasSuffix(".cer") }.sorted().compactMap { try? Data(contentsOf: directory.appendingPathComponent($0)) }
}()
