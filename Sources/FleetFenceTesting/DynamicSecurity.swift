import Foundation
import MQTT

/// A mosquitto that refuses subscriptions (SUBACK 0x80), as a broker with an ACL does. Its
/// `acl_file` grants every SUBSCRIBE and filters at delivery; the dynamic-security plugin
/// refuses, and its ACL can be changed at run time through its control topic.
public enum DynamicSecurity {
    /// Broker configuration lines: anonymous clients may subscribe to `allowed` filters only,
    /// publish anywhere, and change the ACL with ``allowSubscriptions(to:using:)``.
    public static func brokerConfig(allowingSubscriptionsTo allowed: [String], directory: String) throws -> String {
        let file = directory + "/dynamic-security.json"
        let acls = allowed.map { #"{"acltype": "subscribePattern", "topic": "\#($0)", "allow": true}"# }
            + [#"{"acltype": "publishClientSend", "topic": "$CONTROL/dynamic-security/#", "allow": true}"#]
        try """
            {"defaultACLAccess": {"publishClientSend": true, "publishClientReceive": true, "subscribe": false, "unsubscribe": true},
             "clients": [], "anonymousGroup": "anonymous",
             "groups": [{"groupname": "anonymous", "roles": [{"rolename": "reader"}]}],
             "roles": [{"rolename": "reader", "acls": [\(acls.joined(separator: ", "))]}]}
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return "plugin \(try pluginPath())\nplugin_opt_config_file \(file)"
    }

    /// Grants anonymous clients the subscription to `filter`, as an operator fixing the ACL would.
    public static func allowSubscriptions(to filter: String, using client: MQTTClient) {
        _ = client.publish(
            topic: "$CONTROL/dynamic-security/v1",
            payload: #"{"commands":[{"command":"addRoleACL","rolename":"reader","acltype":"subscribePattern","topic":"\#(filter)","allow":true}]}"#,
            qos: 1)
    }

    /// Debian's mosquitto package ships the plugin under the multiarch library folder.
    private static func pluginPath() throws -> String {
        let libraries = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        guard let plugin = libraries.map({ "/usr/lib/\($0)/mosquitto_dynamic_security.so" })
            .first(where: { FileManager.default.fileExists(atPath: $0) })
        else { throw TestSupportError("mosquitto's dynamic-security plugin is not installed (Debian package mosquitto)") }
        return plugin
    }
}
