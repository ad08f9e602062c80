import Configuration
import Yams

/// The config file's keys without its `webhooks` list: swift-configuration's YAML snapshot refuses
/// a list of maps ("Unexpected non-scalar value in array"), so the list is read with Yams apart
/// (``WebhookSettings``) and the provider is given the rest of the file, parsed once from text.
struct YAMLTextProvider: ConfigProvider {
    private let yamlSnapshot: YAMLSnapshot

    init(text: String, providerName: String) throws {
        let bytes = Array(text.utf8)
        yamlSnapshot = try YAMLSnapshot(data: bytes.span.bytes, providerName: providerName, parsingOptions: .default)
    }

    /// `text` without its top-level `webhooks` key, or `nil` when it has none (or is not a mapping
    /// Yams reads: then the file provider reports the file as it is).
    static func withoutWebhooks(_ text: String) -> String? {
        guard let root = try? Yams.compose(yaml: text), case var .mapping(mapping) = root,
            mapping.keys.contains(where: { $0.string == WebhookSettings.configKey })
        else { return nil }
        mapping = Node.Mapping(mapping.filter { $0.key.string != WebhookSettings.configKey }, mapping.tag, mapping.style)
        return (try? Yams.serialize(node: .mapping(mapping))) ?? ""
    }

    var providerName: String { yamlSnapshot.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try yamlSnapshot.value(forKey: key, type: type)
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { yamlSnapshot }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}
