from dractl.cli.app import entry

if __name__ == "__main__":
    entry()
