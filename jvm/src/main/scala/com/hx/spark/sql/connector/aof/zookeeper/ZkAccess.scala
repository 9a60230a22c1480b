package com.hx.spark.sql.connector.aof.zookeeper

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity

/**
 * What the driver and every endpoint need to open a ZooKeeper client of the query; `embedded`
 * when the server is the driver's own, up by construction.
 *
 * @param connectWaitSeconds how long a client waits for a server of `connectString` before it
 *   gives up naming the option
 */
final case class ZkAccess(
    connectString: String,
    sessionTimeoutMs: Int,
    security: ZooKeeperSecurity = ZooKeeperSecurity(),
    embedded: Boolean = false,
    connectWaitSeconds: Int = 20)
