/**
 * Examples for the OpenAPI document, taken from what `quarry serve` answers on its demo archive (the generated
 * one it serves without an argument). The test validates each against the schema it illustrates, so an example
 * cannot drift from the shapes. Lists are cut to their first entries.
 */
import { PROJECTABLE_PROPERTIES } from '../../rest/projectable.js';

export const EXAMPLES = {
  server: {
    API_major_version: '4',
    API_minor_version: '1',
    API_prefix: '/api/v4',
    API_revision_version: '0',
    AiiDA_version: '2.3.1',
  },
  user: {
    first_name: 'Alice',
    id: 1,
    institution: 'EPFL',
    last_name: 'Anders',
  },
  computer: {
    description: 'Local workstation',
    hostname: 'localhost',
    id: 1,
    label: 'localhost',
    metadata: {
      shebang: '#!/bin/bash',
      workdir: '/tmp/aiida_run/',
      mpirun_command: ['mpirun', '-np', '{tot_num_mpiprocs}'],
      default_mpiprocs_per_machine: 1,
      prepend_text: '',
      append_text: '',
    },
    scheduler_type: 'core.direct',
    transport_type: 'core.local',
    uuid: 'a08ff49b-6f77-4632-b16c-43069c43a8c3',
  },
  group: {
    description: 'all structures',
    extras: {},
    id: 1,
    label: 'structures/all',
    time: 'Mon, 04 Mar 2019 10:31:13 GMT',
    type_string: 'core',
    user_id: 1,
    uuid: 'd4e8eb2a-f2f2-4165-a881-cd424e42a851',
  },
  node: {
    ctime: 'Mon, 11 Mar 2019 10:14:38 GMT',
    full_type: 'data.core.structure.StructureData.|',
    id: 13,
    label: 'GaAs zincblende',
    mtime: 'Mon, 11 Mar 2019 10:14:42 GMT',
    node_type: 'data.core.structure.StructureData.',
    process_type: null,
    user_id: 1,
    uuid: '50e01d22-b9b3-45fc-b454-a04f64ab4bfb',
  },
  linkedNode: {
    ctime: 'Mon, 04 Mar 2019 17:08:57 GMT',
    full_type: 'data.core.code.installed.InstalledCode.|',
    id: 1,
    label: 'pw-7.2',
    link_label: 'code',
    link_type: 'input_calc',
    mtime: 'Mon, 04 Mar 2019 17:08:59 GMT',
    node_type: 'data.core.code.installed.InstalledCode.',
    process_type: null,
    user_id: 1,
    uuid: '2ae99699-cd6c-432e-af8a-61cac10cc35b',
  },
  // The users' table the server answers, the very object it sends.
  projectable: PROJECTABLE_PROPERTIES.users,
  statistics: {
    total: 3000,
    types: {
      'data.Data.': 15,
      'data.core.array.ArrayData.': 14,
      'data.core.array.bands.BandsData.': 61,
    },
    ctime_by_day: {
      '2019-03-04': 1,
      '2019-03-05': 2,
      '2019-03-06': 2,
    },
  },
  tree: {
    metadata: [
      {
        sent_no_of_incomings: 1,
        sent_no_of_outgoings: 1,
        total_no_of_incomings: 7,
        total_no_of_outgoings: 3,
      },
    ],
    nodes: [
      {
        ctime: 'Wed, 13 Mar 2019 16:37:03 GMT',
        description: '',
        id: 17,
        mtime: 'Wed, 13 Mar 2019 16:37:03 GMT',
        node_label: 'scf-0',
        node_type: 'process.calculation.calcjob.CalcJobNode.',
        uuid: '4e3a1bb4-b8e4-45ba-a0ed-3932512946ae',
        incoming: [
          {
            ctime: 'Mon, 04 Mar 2019 17:08:57 GMT',
            description: 'pw-7.2 code',
            id: 1,
            mtime: 'Mon, 04 Mar 2019 17:08:59 GMT',
            node_label: 'pw-7.2',
            node_type: 'data.core.code.installed.InstalledCode.',
            uuid: '2ae99699-cd6c-432e-af8a-61cac10cc35b',
            link_label: 'code',
            link_type: 'input_calc',
          },
        ],
        outgoing: [
          {
            ctime: 'Thu, 14 Mar 2019 08:46:47 GMT',
            description: '',
            id: 18,
            mtime: 'Thu, 14 Mar 2019 08:46:47 GMT',
            node_label: '',
            node_type: 'data.core.remote.RemoteData.',
            uuid: '108aa509-dd71-4181-88c3-c5866e567ddb',
            link_label: 'remote_folder',
            link_type: 'create',
          },
        ],
      },
    ],
  },
  log: {
    dbnode_id: 17,
    levelname: 'REPORT',
    loggername: 'aiida.orm.nodes.process.calculation.calcjob.CalcJobNode',
    message: '[17|PwCalculation|on_waiting]: scheduler job id 9142081',
    time: 'Wed, 13 Mar 2019 16:37:04 GMT',
  },
  download: {
    download: {
      data: '2\nLattice="0.0 2.7685 2.7685 2.7685 0.0 2.7685 2.7685 2.7685 0.0" pbc="True True True"\nGa           0.0000000000       0.0000000000       0.0000000000\nAs           1.3842500000       1.3842500000       1.3842500000',
      filename: '50e01d22-b9b3-45fc-b454-a04f64ab4bfb.xyz',
      status: 200,
    },
  },
  repoList: [
    {
      name: '.aiida',
      type: 'DIRECTORY',
    },
    {
      name: '_aiidasubmit.sh',
      type: 'FILE',
    },
    {
      name: 'aiida.in',
      type: 'FILE',
    },
    {
      name: 'pseudo',
      type: 'DIRECTORY',
    },
  ],
  attributes: {
    attributes: {
      cell: [
        [0, 2.7685, 2.7685],
        [2.7685, 0, 2.7685],
        [2.7685, 2.7685, 0],
      ],
      pbc1: true,
    },
  },
  derived: {
    derived_properties: {
      dimensionality: {
        dim: 3,
        label: 'volume',
        value: 42.43884728825,
      },
      formula: 'AsGa',
    },
  },
  formats: {
    'data.core.structure.StructureData.|': ['chemdoodle', 'cif', 'xsf', 'xyz'],
  },
};
