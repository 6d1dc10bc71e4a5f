"""The workloads, one module per family, each workload a function of a
Session; cli.WORKLOADS names them. (No imports here, so that unittest's
discovery can walk this directory.)"""
