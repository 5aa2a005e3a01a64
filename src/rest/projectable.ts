/**
 * What each collection offers to project, as the reference REST API describes it. This is static schema
 * metadata of the API (aiida-core translators' get_projectable_properties), served as is.
 */

export interface ProjectableProperties {
  fields: Record<string, Record<string, unknown>>;
  ordering: string[];
}

const NODE_LABEL = {
  display_name: 'Label',
  help_text: 'User-assigned label',
  is_display: false,
  is_foreign_key: false,
  type: 'str',
};
const NODE_TYPE = {
  display_name: 'Type',
  help_text: 'Node type',
  is_display: true,
  is_foreign_key: false,
  type: 'str',
};

/** Fields nodes and processes share. */
const NODE_FIELDS = {
  creator: {
    display_name: 'Creator',
    help_text: 'User that created the node',
    is_display: true,
    is_foreign_key: false,
    type: 'str',
  },
  ctime: {
    display_name: 'Creation time',
    help_text: 'Creation time of the node',
    is_display: true,
    is_foreign_key: false,
    type: 'datetime.datetime',
  },
  mtime: {
    display_name: 'Last Modification time',
    help_text: 'Last modification time',
    is_display: true,
    is_foreign_key: false,
    type: 'datetime.datetime',
  },
  process_type: {
    display_name: 'Process type',
    help_text: 'Process type',
    is_display: false,
    is_foreign_key: false,
    type: 'str',
  },
  user_id: {
    display_name: 'Id of creator',
    help_text: 'Id of the user that created the node',
    is_display: false,
    is_foreign_key: true,
    related_column: 'id',
    related_resource: 'users',
    type: 'int',
  },
  uuid: {
    display_name: 'Unique ID',
    help_text: 'Universally Unique Identifier',
    is_display: true,
    is_foreign_key: false,
    type: 'unicode',
  },
};

export const PROJECTABLE_PROPERTIES: Record<string, ProjectableProperties> = {
  users: {
    fields: {
      first_name: {
        display_name: 'First name',
        help_text: 'First name of the user',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      id: {
        display_name: 'Id',
        help_text: 'Id of the object',
        is_display: true,
        is_foreign_key: false,
        type: 'int',
      },
      institution: {
        display_name: 'Institution',
        help_text: 'Affiliation of the user',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      last_name: {
        display_name: 'Last name',
        help_text: 'Last name of the user',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
    },
    ordering: ['id', 'first_name', 'last_name', 'institution'],
  },
  computers: {
    fields: {
      description: {
        display_name: 'Description',
        help_text: 'short description of the Computer',
        is_display: false,
        is_foreign_key: false,
        type: 'str',
      },
      hostname: {
        display_name: 'Host',
        help_text: 'Name of the host',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      id: {
        display_name: 'Id',
        help_text: 'Id of the object',
        is_display: false,
        is_foreign_key: false,
        type: 'int',
      },
      label: {
        display_name: 'Label',
        help_text: 'Label of the computer',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      scheduler_type: {
        display_name: 'Scheduler',
        help_text: 'Scheduler type',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
        valid_choices: {
          'core.direct': {
            doc: '\n    Support for the direct execution bypassing schedulers.\n    ',
          },
          'core.lsf': {
            doc: "\n    Support for the IBM LSF scheduler\n    'https://www-01.ibm.com/support/knowledgecenter/SSETD4_9.1.2/lsf_welcome.html'\n    ",
          },
          'core.pbspro': {
            doc: '\n    Subclass to support the PBSPro scheduler\n    (http://www.pbsworks.com/).\n\n    I redefine only what needs to change from the base class\n    ',
          },
          'core.sge': {
            doc: '\n    Support for the Sun Grid Engine scheduler and its variants/forks (Son of Grid Engine, Oracle Grid Engine, ...)\n    ',
          },
          'core.slurm': {
            doc: '\n    Support for the SLURM scheduler (http://slurm.schedmd.com/).\n    ',
          },
          'core.torque': {
            doc: '\n    Subclass to support the Torque scheduler..\n\n    I redefine only what needs to change from the base class\n    ',
          },
        },
      },
      transport_type: {
        display_name: 'Transport type',
        help_text: 'Transport Type',
        is_display: false,
        is_foreign_key: false,
        type: 'str',
        valid_choices: {
          'core.local': {
            doc: '\n    Support copy and command execution on the same host on which AiiDA is running via direct file copy and\n    execution commands.\n\n    Note that the environment variables are copied from the submitting process, so you might need to clean it\n    with a ``prepend_text``. For example, the AiiDA daemon sets a ``PYTHONPATH``, so you might want to add\n    ``unset PYTHONPATH`` if you plan on running calculations that use Python.\n    ',
          },
          'core.ssh': {
            doc: '\n    Support connection, command execution and data transfer to remote computers via SSH+SFTP.\n    ',
          },
        },
      },
      uuid: {
        display_name: 'Unique ID',
        help_text: 'Universally Unique Identifier',
        is_display: true,
        is_foreign_key: false,
        type: 'unicode',
      },
    },
    ordering: ['uuid', 'label', 'hostname', 'description', 'scheduler_type', 'transport_type'],
  },
  groups: {
    fields: {
      description: {
        display_name: 'Description',
        help_text: 'Short description of the group',
        is_display: false,
        is_foreign_key: false,
        type: 'str',
      },
      id: {
        display_name: 'Id',
        help_text: 'Id of the object',
        is_display: false,
        is_foreign_key: false,
        type: 'int',
      },
      label: {
        display_name: 'Label',
        help_text: 'Name of the object',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      type_string: {
        display_name: 'Type_string',
        help_text: 'Type of the group',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      user_id: {
        display_name: 'Id of creator',
        help_text: 'Id of the user that created the node',
        is_display: false,
        is_foreign_key: true,
        related_column: 'id',
        related_resource: 'users',
        type: 'int',
      },
      uuid: {
        display_name: 'Unique ID',
        help_text: 'Universally Unique Identifier',
        is_display: false,
        is_foreign_key: false,
        type: 'unicode',
      },
    },
    ordering: ['id', 'label', 'type_string', 'description', 'user_id', 'uuid'],
  },
  nodes: {
    fields: { ...NODE_FIELDS, label: NODE_LABEL, node_type: NODE_TYPE },
    ordering: ['uuid', 'label', 'node_type', 'ctime', 'mtime', 'creator'],
  },
  processes: {
    // Processes share the node fields, but for their label and type, and name the users resource differently.
    fields: {
      'attributes.process_label': {
        display_name: 'Name',
        help_text: 'Process label attribute',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      'attributes.process_state': {
        display_name: 'Process state',
        help_text: 'Process state attribute',
        is_display: true,
        is_foreign_key: false,
        type: 'str',
      },
      ...NODE_FIELDS,
      user_id: { ...NODE_FIELDS.user_id, related_resource: '_dbusers' },
    },
    ordering: ['uuid', 'attributes.process_label', 'ctime', 'mtime', 'creator', 'attributes.process_state'],
  },
};
